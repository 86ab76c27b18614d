package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.GrayRule;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** An application in a config's gray set reads and refreshes to the gray content; one outside keeps the current. */
class LodestarConfigGrayIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private final String namespace = Contexts.namespace();
    private final LodestarClient operator = Contexts.client(namespace);

    @AfterEach
    void closeOperator() {
        operator.close();
    }

    private ApplicationContext start(String zone) {
        Map<String, Object> properties = new HashMap<>();
        properties.put("micronaut.config-client.enabled", "true");
        properties.put("lodestar.config.ids", List.of("orders"));
        properties.put("lodestar.identity-instance-id", "orders-" + zone);
        properties.put("lodestar.identity-metadata.zone", zone);
        return ApplicationContext.builder().properties(Contexts.properties(namespace, properties)).start();
    }

    @Test
    void anApplicationInTheGraySetStartsWithTheGrayValueAndRefreshesToItsUpdates() {
        operator.config().set("orders", "greeting=hello", ConfigFormat.PROPERTIES);
        operator.config().startGray("orders", "greeting=gray", ConfigFormat.PROPERTIES,
                GrayRule.metadata("zone", "eu-1"));
        try (ApplicationContext gray = start("eu-1"); ApplicationContext other = start("eu-2")) {
            RefreshableGreeter greeter = gray.getBean(RefreshableGreeter.class);
            assertThat(greeter.greeting()).isEqualTo("gray");
            assertThat(other.getBean(RefreshableGreeter.class).greeting()).isEqualTo("hello");

            operator.config().updateGray("orders", "greeting=gray-2", ConfigFormat.PROPERTIES,
                    GrayRule.metadata("zone", "eu-1"));

            await().atMost(WAIT).untilAsserted(() -> assertThat(greeter.greeting()).isEqualTo("gray-2"));
            assertThat(other.getBean(RefreshableGreeter.class).greeting()).isEqualTo("hello");
        }
    }

    @Test
    void anApplicationEnteringTheGraySetRefreshesToTheGrayValueAndBackOnAbort() {
        operator.config().set("orders", "greeting=hello", ConfigFormat.PROPERTIES);
        try (ApplicationContext app = start("eu-1")) {
            RefreshableGreeter greeter = app.getBean(RefreshableGreeter.class);
            assertThat(greeter.greeting()).isEqualTo("hello");

            operator.config().startGray("orders", "greeting=gray", ConfigFormat.PROPERTIES,
                    GrayRule.instances("orders-eu-1"));

            await().atMost(WAIT).untilAsserted(() -> assertThat(greeter.greeting()).isEqualTo("gray"));

            operator.config().abortGray("orders");

            await().atMost(WAIT).untilAsserted(() -> assertThat(greeter.greeting()).isEqualTo("hello"));
        }
    }
}
