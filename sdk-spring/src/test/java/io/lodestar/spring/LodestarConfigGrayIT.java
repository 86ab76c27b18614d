package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.GrayRule;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.spring.LodestarConfigRefreshIT.App;
import io.lodestar.spring.LodestarConfigRefreshIT.Limit;
import io.lodestar.spring.LodestarConfigRefreshIT.Limits;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** An application in a config's gray set reads and refreshes to the gray content; one outside keeps the current. */
class LodestarConfigGrayIT {
    private final String namespace = "spring-gray-" + UUID.randomUUID().toString().substring(0, 8);
    private final LodestarClient admin = RedisLodestar.create(LodestarOptions.builder(TestRedis.standalone().uri())
            .namespace(namespace).reconcileInterval(Duration.ofHours(1)).build());

    @AfterEach
    void closeAdmin() {
        admin.close();
    }

    private ConfigurableApplicationContext start(String zone) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).properties(
                "spring.config.import=lodestar:orders/live", "lodestar.redis-uri=" + TestRedis.standalone().uri(),
                "lodestar.namespace=" + namespace, "lodestar.reconcile-interval=1h",
                "lodestar.registration.enabled=false", "lodestar.identity-instance-id=orders-" + zone,
                "lodestar.identity-metadata.zone=" + zone).run();
    }

    @Test
    void anApplicationInTheGraySetStartsWithTheGrayValueAndRefreshesToItsUpdates() {
        admin.config().set("orders/live", "limits.max-requests=100", ConfigFormat.PROPERTIES);
        admin.config().startGray("orders/live", "limits.max-requests=200", ConfigFormat.PROPERTIES,
                GrayRule.metadata("zone", "eu-1"));
        try (ConfigurableApplicationContext gray = start("eu-1"); ConfigurableApplicationContext other = start("eu-2")) {
            assertThat(gray.getBean(Limit.class).max()).isEqualTo(200);
            assertThat(gray.getBean(Limits.class).getMaxRequests()).isEqualTo(200);
            assertThat(other.getBean(Limit.class).max()).isEqualTo(100);

            admin.config().updateGray("orders/live", "limits.max-requests=300", ConfigFormat.PROPERTIES,
                    GrayRule.metadata("zone", "eu-1"));

            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(gray.getBean(Limit.class).max()).isEqualTo(300));
            assertThat(other.getBean(Limit.class).max()).isEqualTo(100);
        }
    }

    @Test
    void anApplicationEnteringTheGraySetRefreshesToTheGrayValueAndBackOnAbort() {
        admin.config().set("orders/live", "limits.max-requests=100", ConfigFormat.PROPERTIES);
        try (ConfigurableApplicationContext app = start("eu-1")) {
            Limit limit = app.getBean(Limit.class);
            assertThat(limit.max()).isEqualTo(100);

            admin.config().startGray("orders/live", "limits.max-requests=200", ConfigFormat.PROPERTIES,
                    GrayRule.instances("orders-eu-1"));

            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(app.getBean(Limit.class).max()).isEqualTo(200));

            admin.config().abortGray("orders/live");

            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(app.getBean(Limit.class).max()).isEqualTo(100));
        }
    }
}
