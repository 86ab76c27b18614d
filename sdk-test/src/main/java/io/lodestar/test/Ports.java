package io.lodestar.test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

/**
 * Picks free loopback ports, never Redis' or Sentinel's default port. {@code redis-server --port 0} does not mean
 * "any port" (it disables TCP), so the kit picks a port in Java, releases it and lets Redis bind it; a bind race
 * is handled by the caller retrying.
 * Ports handed out stay reserved in this JVM until released, so two servers starting at once never get the
 * same one.
 */
final class Ports {

    /** Redis Cluster's bus listens on the client port plus this offset. */
    static final int CLUSTER_BUS_OFFSET = 10000;

    /** The default Redis port: a developer's own server may run there, so the kit never uses it. */
    static final int REDIS_DEFAULT_PORT = 6379;

    /** The default Sentinel port: the same goes for it. */
    static final int SENTINEL_DEFAULT_PORT = 26379;

    private static final int ATTEMPTS = 200;
    private static final Set<Integer> RESERVED = new HashSet<>();

    private Ports() {
    }

    /**
     * Reserves a free port on 127.0.0.1; with {@code withClusterBus}, port + 10000 is free (and below 65536) too.
     *
     * @throws IllegalStateException if no such port is found in 200 attempts
     */
    static int reserve(boolean withClusterBus) {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            } catch (IOException e) {
                throw new IllegalStateException("Cannot open a server socket on 127.0.0.1 to find a free port", e);
            }
            int bus = port + CLUSTER_BUS_OFFSET;
            if (isDefault(port)) {
                continue;
            }
            if (withClusterBus && (bus > 65535 || isDefault(bus) || !isFree(bus))) {
                continue;
            }
            synchronized (RESERVED) {
                if (RESERVED.contains(port) || withClusterBus && RESERVED.contains(bus)) {
                    continue;
                }
                RESERVED.add(port);
                if (withClusterBus) {
                    RESERVED.add(bus);
                }
            }
            return port;
        }
        throw new IllegalStateException("Found no free port on 127.0.0.1"
                + (withClusterBus ? " whose cluster bus port (+10000) is free too" : "")
                + " in " + ATTEMPTS + " attempts");
    }

    /** Makes a port (and its cluster bus port) available to {@link #reserve} again. */
    static void release(int port) {
        synchronized (RESERVED) {
            RESERVED.remove(port);
            RESERVED.remove(port + CLUSTER_BUS_OFFSET);
        }
    }

    private static boolean isDefault(int port) {
        return port == REDIS_DEFAULT_PORT || port == SENTINEL_DEFAULT_PORT;
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort() == port;
        } catch (IOException e) {
            return false;
        }
    }
}
