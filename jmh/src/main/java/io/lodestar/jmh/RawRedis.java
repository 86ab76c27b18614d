package io.lodestar.jmh;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.BenchmarkAccess;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The raw baselines' side of Redis: a plain Lettuce client built with the settings Lodestar uses (RESP3, UTF-8
 * string codec, keep-alive, the default 5 s command timeout, commands rejected while disconnected), and Lodestar's
 * own Lua scripts run by a plain EVALSHA with the keys and arguments Lodestar passes — so a baseline does exactly
 * the Redis-side work of the Lodestar call it is compared with, without Lodestar's client code.
 *
 * <p>The scripts and the key layout are Lodestar's own, taken through {@link BenchmarkAccess} (in Lodestar's
 * package, in this jar only), so they cannot drift from what the Lodestar call sends.
 */
final class RawRedis {
    private static final Duration TIMEOUT = LodestarOptions.DEFAULT_COMMAND_TIMEOUT;
    /** What deregister_instance.lua is given as the tombstone's shortest life, as Lodestar passes it. */
    static final String TOMBSTONE_MILLIS = Long.toString(Duration.ofMinutes(1).toMillis());
    /**
     * The write token the baselines pass to the service write scripts (the digest of the event, see publish in
     * stamps.lua): Lodestar draws one per write, a cost of the client; Redis' work is the same for any token.
     */
    static final String WRITE_TOKEN = "5f1c0e3a9b7d42e8a6c4f0b2d8e1a3c7";

    /** The lease owner the baselines register with, as Lodestar's client passes its own. */
    static final String OWNER = "0123456789abcdef";

    private RawRedis() {
    }

    /** A plain Lettuce client with Lodestar's settings; the caller shuts it down. */
    static RedisClient client(String uri) {
        return client(RedisURI.create(uri));
    }

    /** A plain Lettuce client with Lodestar's settings; the caller shuts it down. */
    static RedisClient client(RedisURI uri) {
        RedisClient client = RedisClient.create(uri);
        client.setOptions(ClientOptions.builder()
                .socketOptions(SocketOptions.builder().connectTimeout(TIMEOUT).keepAlive(true).build())
                .timeoutOptions(TimeoutOptions.enabled(TIMEOUT))
                .protocolVersion(ProtocolVersion.RESP3)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        return client;
    }

    /** @return a UTF-8 string connection of {@code client} */
    static StatefulRedisConnection<String, String> connect(RedisClient client) {
        return client.connect(StringCodec.UTF8);
    }

    /** One of Lodestar's scripts, loaded into Redis by SCRIPT LOAD and run by EVALSHA. */
    record Script(String name, String sha) {
        /** Reads {@code name}.lua from the lodestar-redis jar and loads it into the server of {@code redis}. */
        static Script load(RedisCommands<String, String> redis, String name) {
            return new Script(name, redis.scriptLoad(BenchmarkAccess.script(name)));
        }

        /** @return the script's reply (a list for Lodestar's write scripts) */
        List<Object> run(RedisCommands<String, String> redis, String[] keys, String... args) {
            return redis.evalsha(sha, ScriptOutputType.MULTI, keys, args);
        }
    }

    /** The keys of one service, in the order every service write script expects them (see {@code Keys}). */
    static String[] serviceKeys(String namespace, String serviceId) {
        return BenchmarkAccess.serviceKeys(namespace, serviceId);
    }

    /** The shard channel of a service's events. */
    static String serviceChannel(String namespace, String serviceId) {
        return BenchmarkAccess.serviceChannel(namespace, serviceId);
    }

    /** The hash Lodestar passes with a plain config content (set_config.lua's ARGV[6]). */
    static String contentHash(String content) {
        return BenchmarkAccess.contentHash(content);
    }

    /** The keys of one config entry, in the order the config write scripts expect them. */
    static String[] configKeys(String namespace, String configId) {
        return BenchmarkAccess.configKeys(namespace, configId);
    }

    /** An instance as register_instance.lua expects it (ARGV[2]): the JSON Lodestar writes, field for field. */
    static String instanceJson(ServiceInstance instance) {
        return "{\"host\":" + quote(instance.host()) + ",\"port\":" + instance.port() + ",\"secure\":"
                + instance.secure() + ",\"weight\":" + instance.weight() + ",\"status\":"
                + quote(instance.status().name()) + ",\"ttl\":" + instance.ttl().toMillis() + ",\"metadata\":"
                + json(instance.metadata()) + "}";
    }

    /** The arguments register_instance.lua gets from {@code registry().register(instance)}. */
    static String[] registerArgs(ServiceInstance instance) {
        return new String[] {instance.instanceId(), instanceJson(instance),
                Long.toString(instance.ttl().toMillis()), "register", OWNER, WRITE_TOKEN};
    }

    /** A flat string map as JSON, in one StringBuilder (a baseline writes it as a plain client would). */
    static String json(Map<String, String> map) {
        StringBuilder out = new StringBuilder(2 + 40 * map.size()).append('{');
        for (Map.Entry<String, String> entry : map.entrySet()) {
            if (out.length() > 1) {
                out.append(',');
            }
            quote(out, entry.getKey()).append(':');
            quote(out, entry.getValue());
        }
        return out.append('}').toString();
    }

    /** Enough JSON quoting for the benchmarks' own ASCII strings. */
    static String quote(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static StringBuilder quote(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.append('"');
    }
}
