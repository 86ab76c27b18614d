package io.lodestar.test;

import java.util.List;

/**
 * A real local Redis Cluster of three masters, each owning a third of the 16384 slots, without replicas or (from
 * {@link TestRedis#startClusterWithReplicas()}) with one replica each.
 *
 * <p>Get the shared one from {@link TestRedis#cluster()} (or as a {@code RedisCluster} parameter with
 * {@link RedisExtension}), or a private one for fault injection from {@link TestRedis#startCluster()}.
 * A <em>shard</em> ({@code 0}, {@code 1} or {@code 2}) is master {@code i} and, if any, replica {@code i}:
 * {@link #failover(int)} and {@link #killMasterAndAwaitPromotion(int)} swap the roles inside a shard,
 * {@link #migrateSlot(int, int)} moves a slot to another shard.
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
     * The nodes started as replicas, replica {@code i} following master {@code i} at start. Their
     * {@code close()} does nothing; {@code kill()} and {@code restart()} work (a restart waits until the cluster
     * is healthy again).
     *
     * @return an unmodifiable list of three servers, or an empty one for a cluster without replicas
     */
    List<RedisServer> replicas();

    /**
     * The shard whose master owns a slot now.
     *
     * @param slot 0 to 16383 (Lettuce: {@code SlotHash.getSlot(key)})
     * @return 0, 1 or 2
     * @throws IndexOutOfBoundsException if the slot is out of range
     * @throws IllegalStateException if no running node knows the owner
     */
    int shardOf(int slot);

    /**
     * A manual failover: {@code CLUSTER FAILOVER} on the shard's replica, which takes over in step with its
     * master (no data lost); the old master becomes its replica. Returns once every node sees the new master, the
     * cluster is healthy, and the old master is in sync again.
     *
     * @param shard 0, 1 or 2
     * @throws IndexOutOfBoundsException if the shard is not 0, 1 or 2
     * @throws IllegalStateException if the cluster has no replicas or was closed, or it does not settle in 30 s
     */
    void failover(int shard);

    /**
     * Kills the shard's current master with SIGKILL and returns once its replica has been promoted and every
     * running node sees all slots served again (about the node timeout of 2 s plus an election). The killed node
     * stays down until its {@code restart()}, after which it rejoins as a replica.
     *
     * @param shard 0, 1 or 2
     * @return the killed node
     * @throws IndexOutOfBoundsException if the shard is not 0, 1 or 2
     * @throws IllegalStateException if the cluster has no replicas or was closed, or it does not settle in 30 s
     */
    RedisServer killMasterAndAwaitPromotion(int shard);

    /**
     * Like {@link #killMasterAndAwaitPromotion(int)}, running {@code whileDown} after the kill and before the
     * promotion is awaited: e.g. to start a client that then knows the shard only with its master down.
     *
     * @param shard     0, 1 or 2
     * @param whileDown what to do while the shard has no master
     * @return the killed node
     */
    RedisServer killMasterAndAwaitPromotion(int shard, Runnable whileDown);

    /**
     * Moves one slot, with its keys, to a shard's master, as {@code redis-cli --cluster reshard} does
     * ({@code SETSLOT IMPORTING/MIGRATING}, {@code MIGRATE}, {@code SETSLOT NODE} on every master). Clients
     * writing meanwhile may get {@code ASK} redirects and {@code TRYAGAIN}. Returns once every running node
     * sees the new owner. Does nothing if the shard owns the slot already.
     *
     * @param slot 0 to 16383
     * @param toShard 0, 1 or 2
     * @throws IndexOutOfBoundsException if the slot or shard is out of range
     * @throws IllegalStateException if the cluster was closed, a command fails, or it does not settle in 30 s
     */
    void migrateSlot(int slot, int toShard);

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
     * Kills the node started as master {@code masterIndex} with SIGKILL, as a crash would. Without replicas its
     * slots stay assigned to it, so they are unavailable until {@link #restart(int)}.
     *
     * @param masterIndex 0, 1 or 2
     * @throws IndexOutOfBoundsException if the index is not 0, 1 or 2
     * @throws IllegalStateException if the cluster was closed or the process does not die within 10 s
     */
    void kill(int masterIndex);

    /**
     * Starts the node started as master {@code masterIndex} again on its port (killing it first if it runs); it
     * rejoins with its node id and slots from its {@code nodes.conf} (as a replica if its replica took over
     * meanwhile). Returns once every node reports {@code cluster_state:ok}, sees three healthy masters and no
     * failing node, and every replica is in sync.
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
