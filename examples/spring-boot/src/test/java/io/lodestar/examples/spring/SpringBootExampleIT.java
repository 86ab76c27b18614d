package io.lodestar.examples.spring;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static io.lodestar.examples.spring.RunExample.TEMPLATE_ID;
import static io.lodestar.examples.spring.RunExample.call;
import static io.lodestar.examples.spring.RunExample.port;
import static io.lodestar.examples.spring.RunExample.startClientService;
import static io.lodestar.examples.spring.RunExample.startGreetingService;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the README promises, with the real applications against a real Redis: client-service's calls split as the
 * greeting-service instances' weights say, a template changed in Redis changes the answers without a restart, and an
 * instance stopped is no longer chosen.
 */
@Timeout(120)
class SpringBootExampleIT {
    private static final String NAMESPACE = "example-spring-boot-it";
    /** Chi-square with one degree of freedom, p = 0.001: a fair split fails it once in a thousand runs. */
    private static final double CHI_SQUARE_CRITICAL = 10.83;

    private static LodestarClient operator;
    private static ConfigurableApplicationContext light;
    private static ConfigurableApplicationContext heavy;
    private static ConfigurableApplicationContext client;
    private static RestClient hello;

    @BeforeAll
    static void startThePair() {
        String uri = TestRedis.standalone().uri();
        operator = RedisLodestar.create(LodestarOptions.builder(uri).namespace(NAMESPACE).build());
        operator.config().set(TEMPLATE_ID, "greeting.template=Hello, {name}!", ConfigFormat.PROPERTIES);
        light = startGreetingService(uri, NAMESPACE, 0, 1, "eu-1");
        heavy = startGreetingService(uri, NAMESPACE, 0, 3, "eu-2");
        client = startClientService(uri, NAMESPACE, 0);
        hello = RestClient.create("http://127.0.0.1:" + port(client));
    }

    @AfterAll
    static void stopThePair() {
        for (AutoCloseable closeable : new AutoCloseable[] {client, heavy, light, operator}) {
            try {
                if (closeable != null) {
                    closeable.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Test
    void callsSplitAsTheWeightsSay() {
        // given instances with weights 1 and 3

        // when client-service is called 400 times
        Map<String, Integer> byInstance = new HashMap<>();
        for (int i = 0; i < 400; i++) {
            byInstance.merge(call(hello).instance(), 1, Integer::sum);
        }

        // then about a quarter of the calls reached the light one
        String lightId = instanceId(light);
        String heavyId = instanceId(heavy);
        assertThat(byInstance).containsOnlyKeys(lightId, heavyId);
        assertThat(chiSquare(byInstance.get(lightId), 100, byInstance.get(heavyId), 300))
                .as("chi-square of %s against 100 : 300", byInstance).isLessThan(CHI_SQUARE_CRITICAL);
    }

    @Test
    void aTemplateChangedInRedisChangesTheAnswersWithoutARestart() {
        // given the pair answering
        assertThat(call(hello).message()).isNotEqualTo("Hi Ada, live from Redis");

        // when an operator changes the config entry in Redis
        operator.config().set(TEMPLATE_ID, "greeting.template=Hi {name}, live from Redis", ConfigFormat.PROPERTIES);

        // then both instances answer with it (20 calls in a row), without a restart
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            for (int i = 0; i < 20; i++) {
                assertThat(call(hello).message()).isEqualTo("Hi Ada, live from Redis");
            }
        });
    }

    @Test
    void anInstanceStoppedIsNoLongerChosen() {
        // given a third instance that client-service has started to choose
        ConfigurableApplicationContext doomed = startGreetingService(TestRedis.standalone().uri(), NAMESPACE, 0, 3,
                "eu-1");
        String doomedId = instanceId(doomed);
        try {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> call(hello).instance().equals(doomedId));

            // when it stops
            doomed.close();

            // then client-service soon answers from the others only (with weights 1 : 3 : 3, 50 calls in a row
            // that miss a still chosen instance by chance happen about once in 10^12 runs)
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().untilAsserted(() -> {
                for (int i = 0; i < 50; i++) {
                    assertThat(call(hello).instance()).isIn(instanceId(light), instanceId(heavy));
                }
            });
        } finally {
            doomed.close();
        }
    }

    private static String instanceId(ConfigurableApplicationContext greetingService) {
        return "127.0.0.1:" + port(greetingService);
    }

    private static double chiSquare(int observedA, double expectedA, int observedB, double expectedB) {
        return Math.pow(observedA - expectedA, 2) / expectedA + Math.pow(observedB - expectedB, 2) / expectedB;
    }
}
