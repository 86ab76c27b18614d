package io.lodestar.test;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.net.ssl.SSLSocketFactory;

/** Control commands the kit runs against any server: {@code INFO}, {@code CLIENT KILL}. */
final class ServerInfo {

    /** Bound for one control connection and command. */
    static final Duration TIMEOUT = Duration.ofSeconds(5);

    private ServerInfo() {
    }

    /** Parses an {@code INFO} reply into {@code field -> value}. */
    static Map<String, String> parseInfo(String info) {
        Map<String, String> fields = new HashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    static Map<String, String> info(Resp resp, String section) throws IOException {
        return parseInfo(resp.callString("INFO", section));
    }

    /**
     * Connects, reads {@code redis_version} from {@code INFO server} and checks the 7.0 floor.
     *
     * @throws IllegalStateException if the server cannot be reached or is older than Redis 7.0
     */
    static String version(RedisEndpoint endpoint, String what) {
        String version;
        try (Resp resp = Resp.connect(endpoint, TIMEOUT)) {
            version = info(resp, "server").get("redis_version");
        } catch (IOException e) {
            throw new IllegalStateException("Cannot reach " + what + " at " + endpoint.redacted() + ": "
                    + e.getMessage(), e);
        }
        if (version == null) {
            throw new IllegalStateException(what + " at " + endpoint.redacted()
                    + " reports no redis_version in INFO server");
        }
        requireSupported(version, what + " at " + endpoint.redacted());
        return version;
    }

    /**
     * Fails unless the version is 7.0 or newer.
     *
     * @throws IllegalStateException if older than Redis 7.0
     */
    static void requireSupported(String version, String what) {
        if (!RedisVersion.parse(version).isSupported()) {
            throw new IllegalStateException(what + " is Redis " + version + ", but Lodestar needs Redis "
                    + RedisVersion.FLOOR + " or newer (sharded PubSub: SPUBLISH/SSUBSCRIBE)");
        }
    }

    /**
     * Runs {@code CLIENT KILL TYPE <type>}; the control connection itself is skipped (SKIPME is the default).
     *
     * @throws IllegalArgumentException if Redis rejects the type
     * @throws IllegalStateException if the server cannot be reached
     */
    static long clientKill(RedisEndpoint endpoint, String type) {
        return clientKill(endpoint, null, type);
    }

    /** {@link #clientKill(RedisEndpoint, String)} with the TLS sockets made by {@code tls} (null: the default). */
    static long clientKill(RedisEndpoint endpoint, SSLSocketFactory tls, String type) {
        if (type == null || type.isBlank()) {
            throw new IllegalArgumentException(
                    "type must be normal, pubsub, replica or master, but was '" + type + "'");
        }
        try (Resp resp = Resp.connect(endpoint, TIMEOUT, tls)) {
            return resp.callLong("CLIENT", "KILL", "TYPE", type);
        } catch (Resp.ErrorReply e) {
            throw new IllegalArgumentException("CLIENT KILL TYPE " + type + " was rejected by "
                    + endpoint.redacted() + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot run CLIENT KILL TYPE " + type + " on " + endpoint.redacted()
                    + ": " + e.getMessage(), e);
        }
    }
}
