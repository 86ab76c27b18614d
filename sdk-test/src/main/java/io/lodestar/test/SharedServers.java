package io.lodestar.test;

import java.util.List;

/**
 * Wrappers for the per-JVM shared server and cluster: everything delegates except {@code close()}, which is
 * a no-op because many tests hold them; the {@link Reaper} stops them at JVM exit.
 */
final class SharedServers {

    private SharedServers() {
    }

    static RedisServer unclosable(RedisServer server) {
        return new ForwardingRedisServer(server) {
            @Override
            public void close() {
                // Shared per JVM: stopped at JVM exit.
            }

            @Override
            public String toString() {
                return "shared " + server;
            }
        };
    }

    static RedisCluster unclosable(RedisCluster cluster) {
        return new RedisCluster() {
            @Override
            public List<RedisServer> masters() {
                return cluster.masters();
            }

            @Override
            public List<RedisServer> replicas() {
                return cluster.replicas();
            }

            @Override
            public String uri() {
                return cluster.uri();
            }

            @Override
            public List<String> seedUris() {
                return cluster.seedUris();
            }

            @Override
            public String version() {
                return cluster.version();
            }

            @Override
            public void kill(int masterIndex) {
                cluster.kill(masterIndex);
            }

            @Override
            public void restart(int masterIndex) {
                cluster.restart(masterIndex);
            }

            @Override
            public long disconnectClients(String type) {
                return cluster.disconnectClients(type);
            }

            @Override
            public int shardOf(int slot) {
                return cluster.shardOf(slot);
            }

            @Override
            public void failover(int shard) {
                cluster.failover(shard);
            }

            @Override
            public RedisServer killMasterAndAwaitPromotion(int shard) {
                return cluster.killMasterAndAwaitPromotion(shard);
            }

            @Override
            public RedisServer killMasterAndAwaitPromotion(int shard, Runnable whileDown) {
                return cluster.killMasterAndAwaitPromotion(shard, whileDown);
            }

            @Override
            public void migrateSlot(int slot, int toShard) {
                cluster.migrateSlot(slot, toShard);
            }

            @Override
            public void close() {
                // Shared per JVM: stopped at JVM exit.
            }

            @Override
            public String toString() {
                return "shared " + cluster;
            }
        };
    }
}
