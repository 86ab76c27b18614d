package io.lodestar.redis;

import io.lodestar.redis.internal.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What a Redis outage writes to the log: per connection kind (the command connections, the PubSub connections), one
 * WARN when the outage begins, one INFO with a summary when it ends; everything in between (each further connection
 * lost, each failed reconnect) at DEBUG. An outage of 20 s used to write a WARN per connection and reconnect attempt;
 * an operator needs to know that it began, why, and when it ended.
 *
 * <p>Only an outage is one (as for the sweep's outage rule, see {@link OutageEvidence}): a connection closed under the
 * client that Lettuce reconnects at its first attempt (a {@code CLIENT KILL}, a PubSub connection cut off for its
 * output buffer) is logged at DEBUG; it becomes an outage with the first failed reconnect. A connection Redis left
 * without answers for the command timeout is one at once.
 *
 * <p>Lettuce logs its own reconnect attempts (at most one WARN per connection per 5 s, logger
 * {@code io.lettuce.core.protocol.ConnectionWatchdog}), through netty's logging: only the logging configuration can
 * quiet it (docs/redis.md, "When Redis misbehaves").
 */
final class OutageLog {
    /** A kind of connection whose outage is logged on its own. */
    enum Kind {
        COMMAND("command"), PUBSUB("PubSub");

        private final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    private final Logger log;
    private final Clock clock;
    private final String where;
    private final Map<Kind, Outage> outages = new EnumMap<>(Kind.class);

    /** One kind's connections lost now: since when, the first one's node and why, whether the WARN went out. */
    private static final class Outage {
        final Set<Object> lost = new HashSet<>();
        final long sinceNanos;
        final String node;
        final String reason;
        boolean warned;
        int failedReconnects;

        Outage(long sinceNanos, String node, String reason) {
            this.sinceNanos = sinceNanos;
            this.node = node;
            this.reason = reason;
        }
    }

    OutageLog(Clock clock, String where) {
        this(clock, where, LoggerFactory.getLogger(OutageLog.class));
    }

    /** @param log where the lines go (tests record them) */
    OutageLog(Clock clock, String where, Logger log) {
        this.clock = clock;
        this.where = where;
        this.log = log;
    }

    /**
     * A connection of the kind is lost: {@code reason} says how.
     *
     * @param outage whether this alone is an outage (Redis left it without answers), else only once a reconnect fails
     */
    synchronized void lost(Kind kind, Object connection, String node, String reason, boolean outage) {
        Outage lost = outages.computeIfAbsent(kind, k -> new Outage(clock.nanoTime(), node, reason));
        lost.lost.add(connection);
        log.debug("Lost a {} connection to Redis at {} ({})", kind.label, node, reason);
        if (outage) {
            warn(kind, lost);
        }
    }

    /** Lettuce could not reconnect a lost connection (it tries again): what is lost now is an outage. */
    synchronized void reconnectFailed() {
        outages.forEach((kind, outage) -> {
            outage.failedReconnects++;
            warn(kind, outage);
        });
        log.debug("A reconnect to Redis at {} failed", where);
    }

    private void warn(Kind kind, Outage outage) {
        if (!outage.warned) {
            outage.warned = true;
            log.warn("Lost the {} connection to Redis at {} ({}): reconnecting in the background; views serve what"
                    + " they hold and say they are stale until it is back (one line when it is back; details at"
                    + " DEBUG)", kind.label, outage.node, outage.reason);
        }
    }

    /** A connection of the kind is back (reconnected, or answers again); one that was not lost changes nothing. */
    synchronized void back(Kind kind, Object connection, String node) {
        Outage outage = outages.get(kind);
        if (outage != null && outage.lost.remove(connection)) {
            ended(kind, outage, node, "is back");
        }
    }

    /**
     * A connection was closed for good (on purpose, or a node left the cluster's topology after a failover): a lost
     * one is no longer waited for.
     */
    synchronized void closed(Object connection, String node) {
        for (Kind kind : Kind.values()) {
            Outage outage = outages.get(kind);
            if (outage != null && outage.lost.remove(connection)) {
                ended(kind, outage, node, "was closed for good");
            }
        }
    }

    private void ended(Kind kind, Outage outage, String node, String how) {
        if (!outage.lost.isEmpty()) {
            log.debug("A {} connection to Redis at {} {}; {} still lost", kind.label, node, how, outage.lost.size());
            return;
        }
        outages.remove(kind);
        if (!outage.warned) {
            log.debug("The {} connection to Redis at {} {} after {} ms", kind.label, node, how,
                    Duration.ofNanos(clock.nanoTime() - outage.sinceNanos).toMillis());
            return;
        }
        log.info("Redis outage of the {} connection over: the last lost one (to {}) {} after {} ms ({} failed"
                + " reconnects)", kind.label, node, how,
                Duration.ofNanos(clock.nanoTime() - outage.sinceNanos).toMillis(), outage.failedReconnects);
    }
}
