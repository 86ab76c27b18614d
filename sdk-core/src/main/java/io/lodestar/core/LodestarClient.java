package io.lodestar.core;

import io.lodestar.core.model.Namespace;

import java.util.List;

/**
 * One connection to the registry and config store of one namespace. Thread-safe; create one per application
 * and share it. {@link #close()} deregisters what this client registered and releases its connections.
 */
public interface LodestarClient extends AutoCloseable {
    /** @return the namespace every operation of this client works in */
    Namespace namespace();

    /** @return registry writes (register, renew, deregister, metadata) */
    ServiceRegistry registry();


    /**
     * The regions this client reads: its home region (where it registers and writes) first, then the remote regions
     * in the order named ({@link LodestarOptions.Builder#remoteRegion}). With remote regions, {@link #discovery()}
     * answers from home first and adds the next region only when home has fewer than
     * {@link LodestarOptions#regionFailoverThreshold()} instances UP.
     *
     * @return the region names, home first; empty when the client names no region
     */
    default List<String> regions() {
        return List.of();
    }

    /**
     * @return the local, PubSub-fed view of the registry: reads without a network call; with remote regions, home
     *     first and the others as {@link #regions()} says
     */
    ServiceDiscovery discovery();

    /**
     * The local view of one region: the home region's is {@link #discovery()} without failover; a remote region's
     * is kept current by that region's own Redis, with the same guarantees as home's, and never written to.
     *
     * @param region one of {@link #regions()}
     * @return the view of that region alone
     * @throws InvalidArgumentException when the client reads no region of that name
     */
    default ServiceDiscovery discovery(String region) {
        throw new InvalidArgumentException(new Violation("region", region, "one of " + regions()));
    }

    /**
     * Every region at once: the instances of all regions, home's first, each stamped with its region (for a load
     * balancer that prefers by region itself, {@code RegionPreference}). Without remote regions, {@link #discovery()}.
     *
     * @return a view over all regions
     */
    default ServiceDiscovery allRegions() {
        return discovery();
    }

    /** @return a reader that asks Redis on every call (for tools, and as a baseline) */
    ServiceDiscovery directDiscovery();

    /** @return the configuration service */
    ConfigService config();

    /**
     * A config reader that asks Redis on every call, like {@link #directDiscovery()} for the registry: no local view,
     * no subscription, nothing held between calls. Its {@code get} answers as {@code config().get} does, at the cost
     * of a round trip each time: for tools that read once, and as a baseline.
     *
     * @return the direct config reader
     */
    ConfigReader directConfig();

    /**
     * The client's health, from local state only (no network call, cheap enough for every health probe): the
     * connection to each Redis node, how current the views are, and the state of this client's registrations.
     *
     * @return a snapshot of the client's health
     */
    ClientHealth health();

    /**
     * Tells the listener when a connection to a Redis node is established or lost (on a Lodestar thread).
     *
     * @param listener the listener
     * @return the subscription; close it to stop
     */
    Subscription addConnectionStateListener(ConnectionStateListener listener);

    /**
     * The first phase of a graceful shutdown: sets every instance this client registered to
     * {@link io.lodestar.core.model.InstanceStatus#OUT_OF_SERVICE}, so consumers stop choosing it while requests in
     * flight finish; the instances stay registered and renewed. Never throws: an instance that cannot be changed
     * (Redis unreachable) is logged and left as it is. Bounded by the command timeout.
     *
     * @return how many instances were taken out of service
     */
    int drain();

    /**
     * The second phase of a graceful shutdown: deregisters every instance this client registered and stops
     * renewing them, whatever {@link LodestarOptions#deregisterOnClose()} says. Never throws: an instance that
     * cannot be deregistered (Redis unreachable) is logged and expires after its TTL. Bounded by the command timeout.
     *
     * @return how many instances were deregistered
     */
    int deregisterAll();

    /**
     * Deregisters this client's ephemeral registrations (when so configured; persistent ones stay, see
     * {@link Registration}), stops its threads and closes connections. Idempotent. Registrations that complete
     * while it runs are deregistered too. Afterwards every operation of {@link #registry()}, {@link #discovery()},
     * {@link #directDiscovery()}, {@link #config()} and {@link #directConfig()}, synchronous or async, and every
     * subscribe fails with {@link ClientClosedException}.
     */
    @Override
    void close();
}
