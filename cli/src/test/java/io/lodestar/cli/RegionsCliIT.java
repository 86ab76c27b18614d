package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code lodestar regions}: a service's instances by region, each region read from its own Redis. */
class RegionsCliIT {
    private final RedisServer east = TestRedis.standalone();
    private final RedisServer west = TestRedis.startStandalone();
    private final String namespace = "cliregions-" + UUID.randomUUID().toString().substring(0, 8);
    private final LodestarClient inEast = client(east);
    private final LodestarClient inWest = client(west);

    @AfterEach
    void close() {
        inEast.close();
        inWest.close();
        west.close();
    }

    @Test
    void listsTheInstancesOfEveryRegionUnderItsName() {
        inEast.registry().register(persistent("orders-e1", "10.0.0.1"));
        inWest.registry().register(persistent("orders-w1", "10.1.0.1"));

        CliJar.Result result = regions();

        assertThat(result.exitCode()).as(result.toString()).isZero();
        List<String> lines = List.of(result.out().split("\n"));
        assertThat(lines.get(0)).contains("REGION", "ID", "ADDRESS");
        assertThat(lines.subList(1, lines.size())).satisfiesExactly(
                line -> assertThat(line).startsWith("east").contains("orders-e1", "10.0.0.1:8080"),
                line -> assertThat(line).startsWith("west").contains("orders-w1", "10.1.0.1:8080"));
    }

    @Test
    void aRegionThatCannotBeReadGetsARowThatSaysSo() {
        inEast.registry().register(persistent("orders-e1", "10.0.0.1"));
        west.kill();

        CliJar.Result result = regions();

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).contains("orders-e1").containsPattern("west[ -]+unreachable: Not connected");
    }

    private CliJar.Result regions() {
        return CliJar.run(Map.of(), "", "--uri", east.uri(), "--namespace", namespace, "--timeout", "2s",
                "regions", "orders", "--home", "east", "--remote", "west=" + west.uri());
    }

    private static ServiceInstance persistent(String id, String host) {
        return ServiceInstance.builder("orders", id).host(host).port(8080).persistent().build();
    }

    private LodestarClient client(RedisServer redis) {
        return RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace).build());
    }
}
