package io.lodestar.spring;

import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

import java.time.Duration;

import static org.awaitility.Awaitility.await;

/**
 * Two regions, each with its own Redis: "echo" runs in both; a caller at home in east, which names west as a remote
 * region, calls "http://echo/port" through a @LoadBalanced client and fails over to west when east has none left.
 */
class LodestarRegionsWebIT {
    private final RedisServer east = TestRedis.startStandalone();
    private final RedisServer west = TestRedis.startStandalone();

    @AfterEach
    void stopRedis() {
        east.close();
        west.close();
    }

    @Test
    void loadBalancedCallsFailOverToTheRemoteRegionAndBack() {
        try (ConfigurableApplicationContext inWest = echo(west, "west");
             ConfigurableApplicationContext caller = start("caller", east, "east",
                     "lodestar.registration.enabled=false", "lodestar.regions.west.redis-uri=" + west.uri())) {
            RestClient client = caller.getBean(RestClient.Builder.class).build();
            ConfigurableApplicationContext inEast = echo(east, "east");
            try (inEast) {
                await().atMost(Duration.ofSeconds(10)).until(() -> call(client).equals(port(inEast)));
            }

            await().atMost(Duration.ofSeconds(5)).until(() -> call(client).equals(port(inWest)));

            try (ConfigurableApplicationContext backInEast = echo(east, "east")) {
                await().atMost(Duration.ofSeconds(10)).until(() -> call(client).equals(port(backInEast)));
            }
        }
    }

    private static String call(RestClient client) {
        return client.get().uri("http://echo/port").retrieve().body(String.class);
    }

    private static String port(ConfigurableApplicationContext app) {
        return String.valueOf(((WebServerApplicationContext) app).getWebServer().getPort());
    }

    private static ConfigurableApplicationContext echo(RedisServer redis, String region) {
        return start("echo", redis, region);
    }

    private static ConfigurableApplicationContext start(String name, RedisServer redis, String region,
                                                        String... more) {
        return new SpringApplicationBuilder(LodestarLoadBalancedWebIT.App.class)
                .properties("server.port=0", "spring.application.name=" + name, "lodestar.redis-uri=" + redis.uri(),
                        "lodestar.namespace=spring-regions", "lodestar.region=" + region,
                        "lodestar.registration.host=127.0.0.1")
                .properties(more).run();
    }
}
