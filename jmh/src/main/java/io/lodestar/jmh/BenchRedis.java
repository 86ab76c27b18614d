package io.lodestar.jmh;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.StallingRelay;
import io.lodestar.test.TestRedis;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Redis one benchmark state talks to, and the clients it opened on it. The server is the one named by
 * {@value #URI_VARIABLE} (system property or environment variable) when set, else a private {@code redis-server}
 * started by the test kit for this fork. Every instance works in a namespace of its own, so benchmarks never see
 * each other's data.
 *
 * <p>On a server of the kit, {@link #close()} stops the server, which drops everything. On a server given by
 * {@value #URI_VARIABLE} it first deregisters the instances and removes the configs written through
 * {@link #registerAll} and {@link #setConfig}; the namespace's revision counters and config history stay behind
 * (a few small keys), so prefer a throw-away server there too.
 */
final class BenchRedis implements AutoCloseable {
    /** Names an existing Redis to use instead of starting one. */
    static final String URI_VARIABLE = "LODESTAR_REDIS_URI";
    private static final long SETUP_TIMEOUT_SECONDS = 120;

    private final RedisServer server;
    private final String uri;
    private final String namespace;
    private final Deque<LodestarClient> clients = new ArrayDeque<>();
    private final Set<ServiceInstance> registered = ConcurrentHashMap.newKeySet();
    private final Set<String> configs = ConcurrentHashMap.newKeySet();

    private BenchRedis(RedisServer server, String uri) {
        this.server = server;
        this.uri = uri;
        this.namespace = "jmh-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    }

    /** @return a connection to {@value #URI_VARIABLE}, or a newly started private server */
    static BenchRedis start() {
        String given = System.getProperty(URI_VARIABLE, System.getenv(URI_VARIABLE));
        if (given != null && !given.isBlank()) {
            return new BenchRedis(null, given);
        }
        RedisServer started = TestRedis.startStandalone();
        return new BenchRedis(started, started.uri());
    }

    /** @return the Redis URI (for the raw Lettuce baseline) */
    String uri() {
        return uri;
    }

    /** @return the namespace of this instance's clients, e.g. {@code jmh-1x2y3z} */
    String namespace() {
        return namespace;
    }

    /**
     * Starts a relay in front of this server that delays every chunk {@code delay} each way, as a link between
     * regions does; the caller closes it.
     *
     * @throws IllegalStateException on a server given by {@value #URI_VARIABLE}: the relay needs the kit's server
     */
    StallingRelay relay(Duration delay) {
        if (server == null) {
            throw new IllegalStateException("A relay needs a private server from the test kit; unset " + URI_VARIABLE);
        }
        return StallingRelay.to(server, delay);
    }

    /**
     * Opens a client on this server and namespace with default options (the ones users get), closed by
     * {@link #close()}.
     *
     * @param name the connection name prefix, shown by {@code CLIENT LIST}
     * @return the client
     */
    LodestarClient client(String name) {
        return open(LodestarOptions.builder(uri).namespace(namespace).clientName(name).build());
    }

    /**
     * Like {@link #client}, with sweeps and reconciles off (their interval is {@link LodestarOptions#MAX_DURATION},
     * a day): a benchmark measures its operation, not the background work that runs beside it now and then (and
     * Redis' command statistics count only that operation). It does not deregister its instances on close: the
     * write benchmarks leave tens of thousands behind, which the server's end drops at once.
     */
    LodestarClient quietClient(String name) {
        return open(LodestarOptions.builder(uri).namespace(namespace).clientName(name)
                .sweepInterval(LodestarOptions.MAX_DURATION).reconcileInterval(LodestarOptions.MAX_DURATION)
                .deregisterOnClose(false).build());
    }

    private LodestarClient open(LodestarOptions options) {
        LodestarClient client = RedisLodestar.create(options);
        clients.push(client);
        return client;
    }

    /**
     * Registers instances through {@code client}, pipelined, and waits for all of them.
     *
     * @param client    the writing client
     * @param instances what to register
     */
    void registerAll(LodestarClient client, Collection<ServiceInstance> instances) {
        List<CompletableFuture<?>> pending = new ArrayList<>(instances.size());
        for (ServiceInstance instance : instances) {
            pending.add(client.registry().async().register(instance).toCompletableFuture());
            registered.add(instance);
        }
        join(pending, "register " + instances.size() + " instances");
    }

    /**
     * Sets a config entry through {@code client}.
     *
     * @return the entry written
     */
    ConfigEntry setConfig(LodestarClient client, String configId, String content) {
        configs.add(configId);
        return client.config().set(configId, content, ConfigFormat.PROPERTIES);
    }

    @Override
    public void close() {
        try {
            if (server == null && !clients.isEmpty()) {
                removeWhatWasWritten(clients.getLast());
            }
        } finally {
            while (!clients.isEmpty()) {
                clients.pop().close();
            }
            if (server != null) {
                server.close();
            }
        }
    }

    private void removeWhatWasWritten(LodestarClient client) {
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (ServiceInstance instance : registered) {
            pending.add(client.registry().async().deregister(instance.serviceId(), instance.instanceId())
                    .toCompletableFuture());
        }
        for (String configId : configs) {
            pending.add(client.config().async().remove(configId).toCompletableFuture());
        }
        join(pending, "clean up namespace " + namespace);
    }

    private static void join(List<CompletableFuture<?>> pending, String what) {
        try {
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                    .get(SETUP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while trying to " + what, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Could not " + what + ": " + e, e);
        }
    }
}
