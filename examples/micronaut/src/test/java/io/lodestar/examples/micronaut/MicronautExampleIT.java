package io.lodestar.examples.micronaut;

import io.lodestar.core.Lodestar;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.examples.micronaut.client.ClientApplication;
import io.lodestar.examples.micronaut.client.Greeting;
import io.lodestar.examples.micronaut.greeting.GreetingApplication;
import io.lodestar.test.TestRedis;
import io.micronaut.context.ApplicationContextBuilder;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the README promises, end to end over HTTP: two greeting-service instances (weights 1 and 3) and
 * client-service, each a real server on a random port, against a Redis from the test kit, in a namespace of this
 * test's own. Calls go to client-service's {@code /hello}, which calls greeting-service through
 * {@code @Client(id = "greeting-service")}.
 */
class MicronautExampleIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final String namespace = "example-mn-" + UUID.randomUUID();
    private final List<EmbeddedServer> started = new ArrayList<>();
    private LodestarClient operator;
    private EmbeddedServer light;
    private EmbeddedServer heavy;
    private HttpClient http;

    @BeforeEach
    void startTheApplications() {
        operator = Lodestar.connect(LodestarOptions.builder(TestRedis.standalone().uri()).namespace(namespace).build());
        operator.config().set(RunExample.TEMPLATE_CONFIG, "greeting.template=Hello, {name}!", ConfigFormat.PROPERTIES);
        light = greeting("light", 1, "eu-1");
        heavy = greeting("heavy", 3, "eu-2");
        EmbeddedServer client = start(ClientApplication.builder().properties(properties(Map.of())));
        http = client.getApplicationContext().createBean(HttpClient.class, client.getURL());
    }

    @AfterEach
    void stopTheApplications() {
        http.close();
        started.forEach(MicronautExampleIT::stop);
        operator.close();
    }

    @Test
    void callsThroughTheClientSplitOneToThreeByWeight() {
        Map<String, Integer> answered = new HashMap<>();
        Map<String, String> zones = new HashMap<>();
        for (int i = 0; i < 400; i++) {
            Greeting greeting = hello();
            answered.merge(greeting.instance(), 1, Integer::sum);
            zones.put(greeting.instance(), greeting.zone());
        }

        // Expected 100 : 300; one standard deviation of heavy's count is about 8.7, so this is ~5.8 of them.
        assertThat(answered).containsOnlyKeys("light", "heavy");
        assertThat(answered.get("heavy")).as("calls answered by heavy, of 400: %s", answered).isBetween(250, 350);
        assertThat(zones).containsEntry("light", "eu-1").containsEntry("heavy", "eu-2");
    }

    @Test
    void aTemplateChangedInRedisChangesTheAnswersOfEveryInstanceWithoutARestart() {
        assertThat(hello().message()).isEqualTo("Hello, Ada!");

        operator.config().set(RunExample.TEMPLATE_CONFIG, "greeting.template=Bonjour, {name} !",
                ConfigFormat.PROPERTIES);

        // each instance refreshes on its own (asked directly: a poll of two calls stays far inside the bound even on
        // a loaded machine, where forty calls through client-service once outlasted it), then every answer is new
        await().atMost(WAIT).untilAsserted(() -> assertThat(List.of(light, heavy))
                .allSatisfy(instance -> assertThat(greetingOf(instance).message()).isEqualTo("Bonjour, Ada !")));
        Set<String> messages = new HashSet<>();
        Set<String> instances = new HashSet<>();
        for (int i = 0; i < 40; i++) {
            Greeting greeting = hello();
            messages.add(greeting.message());
            instances.add(greeting.instance());
        }
        assertThat(messages).containsExactly("Bonjour, Ada !");
        assertThat(instances).containsExactlyInAnyOrder("light", "heavy");
    }

    @Test
    void aStoppedInstanceDisappearsFromTheClientsChoices() {
        stop(heavy);

        // Calls made while it stops may still reach it and fail; once its deregistration is seen, none does.
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            for (int i = 0; i < 20; i++) {
                assertThat(hello().instance()).isEqualTo("light");
            }
        });
        for (int i = 0; i < 50; i++) {
            assertThat(hello().instance()).isEqualTo("light");
        }
    }

    private Greeting hello() {
        return http.toBlocking().retrieve(HttpRequest.GET("/hello?name=Ada"), Greeting.class);
    }

    /** Asks one greeting-service instance itself, not through client-service and its balancer. */
    private static Greeting greetingOf(EmbeddedServer instance) {
        try (HttpClient direct = instance.getApplicationContext().createBean(HttpClient.class, instance.getURL())) {
            return direct.toBlocking().retrieve(HttpRequest.GET("/greeting?name=Ada"), Greeting.class);
        }
    }

    private EmbeddedServer greeting(String name, int weight, String zone) {
        return start(GreetingApplication.builder().properties(properties(Map.of(
                "lodestar.registration.instance-id", name,
                "lodestar.registration.weight", weight,
                "lodestar.registration.zone", zone))));
    }

    private EmbeddedServer start(ApplicationContextBuilder application) {
        EmbeddedServer server = application.run(EmbeddedServer.class);
        started.add(server);
        return server;
    }

    /** Every application: the test's Redis and namespace, a random port, no periodic reconcile to hide a bug. */
    private Map<String, Object> properties(Map<String, Object> extra) {
        Map<String, Object> properties = new HashMap<>(extra);
        properties.put("lodestar.redis-uri", TestRedis.standalone().uri());
        properties.put("lodestar.namespace", namespace);
        properties.put("lodestar.reconcile-interval", "12h");
        properties.put("micronaut.server.port", -1);
        return properties;
    }

    private static void stop(EmbeddedServer server) {
        if (server.isRunning()) {
            server.stop();
        }
        if (server.getApplicationContext().isRunning()) {
            server.getApplicationContext().close();
        }
    }
}
