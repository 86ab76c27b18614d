package io.lodestar.test;

import java.util.List;

/**
 * A real local Redis Cluster of three masters without replicas, each owning a third of the 16384 slots.
 *
 * <p>Get the shared one from {@link TestRedis#cluster()} (or as a {@code RedisCluster} parameter with
 * {@link RedisExtension}), or a private one for fault injection from {@link TestRedis#startCluster()}.
 * The cluster runs with {@code cluster-require-full-coverage no}, so while one master is down the slots of the
 * other two stay writable.
 */
public interface RedisCluster extends AutoCloseable {

    /**
     * The three masters, in slot order (index 0 owns slots 0–5460). Their {@code close()} does nothing (close
     * the cluster instead); their {@code kill()} and {@code restart()} are {@link #kill(int)} and
     * {@link #restart(int)}.
     *
     * @return an unmodifiable list of three servers
     */
    List<RedisServer> masters();

    /**
     * The SDK's own cluster URI.
     *
     * @return {@code redis-cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3}
     */
    String uri();

    /**
     * One {@code redis://} URI per master, for clients that take seed nodes (Lettuce's
     * {@code RedisClusterClient}).
     *
     * @return an unmodifiable list of three URIs, in the order of {@link #masters()}
     */
    List<String> seedUris();

    /**
     * The servers' version, as {@code INFO server} reports it.
     *
     * @return for example {@code 7.0.15}
     */
    String version();

    /**
     * Kills one master with SIGKILL, as a crash would. Its slots stay assigned to it, so they are unavailable
     * until {@link #restart(int)}.
     *
     * @param masterIndex 0, 1 or 2
     * @throws IndexOutOfBoundsException if the index is not 0, 1 or 2
     * @throws IllegalStateException if the cluster was closed or the process does not die within 10 s
     */
    void kill(int masterIndex);

    /**
     * Starts one master again on its port (killing it first if it runs); it rejoins with its node id and slots
     * from its {@code nodes.conf}. Returns once every node reports {@code cluster_state:ok} and sees three
     * healthy masters.
     *
     * @param masterIndex 0, 1 or 2
     * @throws IndexOutOfBoundsException if the index is not 0, 1 or 2
     * @throws IllegalStateException if the cluster was closed, or it is not healthy again within 30 s
     */
    void restart(int masterIndex);

    /**
     * Runs {@code CLIENT KILL TYPE <type>} on every running master.
     *
     * @param type {@code normal}, {@code pubsub}, {@code replica} or {@code master}
     * @return how many clients were disconnected, summed over the nodes
     * @throws IllegalArgumentException if Redis rejects the type
     * @throws IllegalStateException if a running node cannot be reached
     */
    long disconnectClients(String type);

    /**
     * Stops all nodes and deletes their data directories. Idempotent. A no-op on the shared cluster, which is
     * stopped when the JVM exits.
     */
    @Override
    void close();
}
