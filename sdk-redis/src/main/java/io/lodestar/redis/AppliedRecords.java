package io.lodestar.redis;

import io.lettuce.core.ScriptOutputType;
import io.lodestar.core.AccessDeniedException;
import io.lodestar.core.model.AppliedConfig;
import io.lodestar.core.model.ConfigEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Who runs what: this client's records of the config versions its view applied (record_applied.lua), renewed
 * while it holds them and removed when it drops them or closes, so a record lives as long as its client. A new
 * version is recorded as the view takes it ({@link #note}); every sweep interval {@link #renew} sends each record
 * again (one short script per config held, which also removes up to 100 records of dead clients) and forgets the
 * configs the view no longer holds. The records are what this class last sent, so a record lost in Redis (a failed
 * call, data loss) is back within one interval. Sending never blocks: the view thread calls {@link #note}.
 */
final class AppliedRecords {
    private static final Logger log = LoggerFactory.getLogger(AppliedRecords.class);
    private static final LuaScript RECORD = LuaScript.load("record_applied");
    private static final LuaScript FORGET = LuaScript.load("forget_applied");
    private static final LuaScript READ = LuaScript.load("read_applied");
    /** Records live this many renew intervals: one late or lost renewal does not make a live client vanish. */
    static final int TTL_INTERVALS = 3;

    /** What this client applied of one config. */
    private record Applied(long version, String variant) {
    }

    private final RedisBackend backend;
    private final Keys keys;
    private final String client = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
    private final String identity;
    private final long ttlMillis;
    /** Config id -&gt; what was last sent for it; changed only under this object's lock, in the order it is sent. */
    private final Map<String, Applied> recorded = new HashMap<>();
    /** Whether the last call failed: the first failure of a run is a warning, the rest debug. */
    private final AtomicBoolean failing = new AtomicBoolean();
    /**
     * Set by {@link #close} (under the lock), when Redis refuses this client's writes, or from the start when the
     * options turn recording off: nothing is sent after it, so nothing outlives the client's close.
     */
    private boolean closed;

    AppliedRecords(RedisBackend backend, Keys keys, String clientName, Duration renewInterval, boolean recording) {
        this.closed = !recording;
        this.backend = backend;
        this.keys = keys;
        this.ttlMillis = renewInterval.toMillis() * TTL_INTERVALS;
        this.identity = Json.write(Map.of("name", clientName, "host", hostName(), "pid",
                ProcessHandle.current().pid()));
    }

    /** The host as it names itself: $HOSTNAME when set (no lookup), else the JDK's local host name. */
    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown";
        }
    }

    /**
     * The view took {@code value} for a config: records a new version or variant at once (a renewal would only come
     * an interval later); an empty value (the config is gone) removes the record.
     *
     * @param variant which content of the version the client applied: {@link AppliedConfig#MAIN} until gray releases
     *                let a client choose another
     */
    synchronized void note(String configId, Optional<ConfigEntry> value, String variant) {
        if (closed) {
            return;
        }
        if (value.isEmpty()) {
            if (recorded.remove(configId) != null) {
                forget(configId);
            }
            return;
        }
        Applied applied = new Applied(value.get().version(), variant);
        if (!applied.equals(recorded.put(configId, applied))) {
            send(configId, applied);
        }
    }

    /**
     * Every renew interval: sends each record again, so it outlives the next interval, and removes those of configs
     * the view dropped (idle, or past its limit) or holds as absent.
     *
     * @param held what the view holds now, by config id
     */
    synchronized void renew(Map<String, Optional<ConfigEntry>> held) {
        if (closed) {
            return;
        }
        held.forEach((configId, value) -> value.ifPresent(entry ->
                recorded.putIfAbsent(configId, new Applied(entry.version(), AppliedConfig.MAIN))));
        recorded.entrySet().removeIf(record -> {
            Optional<ConfigEntry> now = held.get(record.getKey());
            if (now == null || now.isEmpty()) {
                forget(record.getKey());
                return true;
            }
            send(record.getKey(), record.getValue());
            return false;
        });
    }

    /** Removes every record of this client, waiting for Redis at most {@code timeout} (closing). */
    void close(Duration timeout) {
        List<CompletableFuture<?>> pending = new ArrayList<>();
        synchronized (this) {
            closed = true;
            recorded.keySet().forEach(configId -> pending.add(forget(configId).toCompletableFuture()));
            recorded.clear();
        }
        try {
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.debug("Could not remove every applied-version record on close ({}); they expire in {} ms", e,
                    ttlMillis);
        }
    }

    /** The live records of a config, highest version first, then by client. */
    CompletionStage<List<AppliedConfig>> read(String configId) {
        return READ.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI, keys.applied(configId))
                .thenApply(reply -> {
                    List<AppliedConfig> records = new ArrayList<>();
                    for (int i = 0; i + 2 < reply.size(); i += 3) {
                        records.add(parse(configId, Reply.text(reply, i, READ), Reply.text(reply, i + 1, READ),
                                Long.parseLong(Reply.text(reply, i + 2, READ))));
                    }
                    records.sort(Comparator.comparingLong(AppliedConfig::version).reversed()
                            .thenComparing(AppliedConfig::client));
                    return records;
                });
    }

    @SuppressWarnings("unchecked")
    private static AppliedConfig parse(String configId, String client, String json, long expiresAt) {
        Map<String, Object> record = Json.read(json);
        Map<String, Object> who = record.get("who") instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
        return new AppliedConfig(configId, client, String.valueOf(who.getOrDefault("name", "")),
                String.valueOf(who.getOrDefault("host", "")), number(who.get("pid")), number(record.get("version")),
                String.valueOf(record.get("variant")), Instant.ofEpochMilli(number(record.get("at"))),
                Instant.ofEpochMilli(expiresAt));
    }

    private static long number(Object value) {
        return value instanceof Number number ? number.longValue() : 0;
    }

    private void send(String configId, Applied applied) {
        watch("record", configId, RECORD.run(backend.commands(), ScriptOutputType.INTEGER, keys.applied(configId),
                client, Long.toString(applied.version()), applied.variant(), Long.toString(ttlMillis), identity));
    }

    private CompletionStage<Object> forget(String configId) {
        return watch("remove", configId, FORGET.run(backend.commands(), ScriptOutputType.INTEGER,
                keys.applied(configId), client));
    }

    /**
     * A record that could not be sent is sent again at the next renewal: said once per run of failures. A client
     * whose Redis user may not write (the reader ACL of docs/redis.md) stops recording at the first refusal: it is
     * then not listed, and says so once.
     */
    private CompletionStage<Object> watch(String what, String configId, CompletionStage<Object> call) {
        return call.whenComplete((ok, failure) -> {
            if (failure != null && Errors.translate(failure, what, backend.where(), backend.timeout())
                    instanceof AccessDeniedException) {
                synchronized (this) {
                    if (!closed) {
                        closed = true;
                        recorded.clear();
                        log.info("This client's Redis user may not write, so it does not record which config versions"
                                + " it applied: who-runs-what lists leave it out");
                    }
                }
            } else if (failure == null) {
                failing.set(false);
            } else if (failing.compareAndSet(false, true)) {
                log.warn("Could not {} the version of config '{}' this client applied ({}); who-runs-what lists may"
                        + " miss it until a renewal succeeds", what, configId, Errors.unwrap(failure).toString());
            } else {
                log.debug("Could not {} the applied version of config '{}': {}", what, configId, failure.toString());
            }
        });
    }
}
