package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.RedisCluster;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The least-privilege users on a Redis Cluster: what Lettuce sends to learn the topology and route commands, and
 * every node's share of the scripts, need nothing beyond the documented rules (no refusal in any master's ACL LOG).
 */
class ClusterSecurityIT {
    private static final String SECRET = "s3cret-Pa55";

    @Test
    void theWriterAndTheReaderUserWorkOnAClusterWithoutARefusal() {
        RedisCluster cluster = TestRedis.cluster();
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String writerUser = "lodestar-" + suffix;
        String readerUser = "reader-" + suffix;
        for (RedisServer master : cluster.masters()) {
            RedisAdmin.run(master, "ACL SETUSER " + writerUser + " on >" + SECRET + " "
                    + String.join(" ", LeastPrivilege.ACL_RULES));
            RedisAdmin.run(master, "ACL SETUSER " + readerUser + " on >" + SECRET + " "
                    + String.join(" ", LeastPrivilege.READER_ACL_RULES));
        }
        String nodes = cluster.uri().substring("redis-cluster://".length());

        try (Clients writers = new Clients("redis-cluster://" + writerUser + ":" + SECRET + "@" + nodes)) {
            Clients readers = writers.sameNamespace("redis-cluster://" + readerUser + ":" + SECRET + "@" + nodes);
            LodestarClient crashing = writers.connect(options -> options.deregisterOnClose(false));
            LodestarClient writer = writers.connect();
            LodestarClient reader = readers.connect();
            List<String> services = IntStream.range(0, 12).mapToObj(i -> "svc-" + i).toList(); // over every master
            services.forEach(service -> writer.registry().register(instance(service, service + "-1")));
            crashing.registry().register(ServiceInstance.builder("svc-0", "svc-0-crashed").host("h").port(1)
                    .ttl(Duration.ofSeconds(1)).build());
            writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
            List<ConfigEvent> heard = new CopyOnWriteArrayList<>();
            reader.config().subscribe("app", heard::add);

            writer.config().set("app", "a=2", ConfigFormat.PROPERTIES);
            crashing.close(); // its instance expires: the sweep runs as the writer user, on every master

            assertThat(reader.discovery().getServices()).containsExactlyInAnyOrderElementsOf(services);
            services.forEach(service -> assertThat(reader.directDiscovery().getInstances(service)).isNotEmpty());
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(heard).hasSize(1);
                assertThat(reader.discovery().getInstances("svc-0")).hasSize(1);
            });
            assertThat(reader.config().history("app")).hasSize(2);
            // the reader's sweep-lock attempt (every interval; refused at its look at the lock key's type) and its
            // record of the version applied, both refused
            await().atMost(Duration.ofSeconds(10)).until(() -> cluster.masters().stream()
                    .flatMap(master -> refusals(master).stream())
                    .filter(refusal -> readerUser.equals(refusal.get("username")))
                    .map(refusal -> refusal.get("object")).toList().containsAll(List.of("type", "hset")));
            readers.close();
        }

        List<Map<String, Object>> refusals = new ArrayList<>();
        cluster.masters().forEach(master -> refusals.addAll(refusals(master)));
        assertThat(refusals).as("the writer's refusals").noneMatch(refusal -> writerUser.equals(refusal.get("username")));
        assertThat(refusals).as("the reader's refusals: the sweep lock and the record of what it applied")
                .filteredOn(refusal -> readerUser.equals(refusal.get("username")))
                .extracting(refusal -> refusal.get("object")).containsOnly("type", "hset");
    }

    private static List<Map<String, Object>> refusals(RedisServer master) {
        try (RedisClient raw = RedisClient.create(master.uri());
             StatefulRedisConnection<String, String> connection = raw.connect()) {
            return connection.sync().aclLog();
        }
    }
}
