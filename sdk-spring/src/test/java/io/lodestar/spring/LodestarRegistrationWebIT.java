package io.lodestar.spring;

import io.lodestar.core.InstanceFilter;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.Subscription;
import io.lodestar.core.event.InstanceDeregistered;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.InstanceUpdated;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A real servlet application on a random port, registering itself and leaving gracefully. */
class LodestarRegistrationWebIT {
    private static final String NAMESPACE = "spring-web";
    private final LodestarClient observer = RedisLodestar.create(LodestarOptions.builder(TestRedis.standalone().uri())
            .namespace(NAMESPACE).reconcileInterval(Duration.ofHours(1)).build());

    @AfterEach
    void closeObserver() {
        observer.close();
    }

    @Test
    void theApplicationRegistersItsWebServerPortOnceItRuns() {
        try (ConfigurableApplicationContext app = start("shop")) {
            int port = ((WebServerApplicationContext) app).getWebServer().getPort();

            assertThat(observer.directDiscovery().getInstances("shop")).singleElement().satisfies(instance -> {
                assertThat(instance.port()).isEqualTo(port);
                assertThat(instance.host()).isEqualTo("127.0.0.1");
                assertThat(instance.status()).isEqualTo(InstanceStatus.UP);
            });
        }
    }

    @Test
    void theServerAddressIsTheRegisteredHostWhenNoRegistrationHostIsSet() {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class).properties("server.port=0",
                "server.address=127.0.0.2", "spring.application.name=bound", "lodestar.redis-uri="
                        + TestRedis.standalone().uri(), "lodestar.namespace=" + NAMESPACE,
                "lodestar.reconcile-interval=1h").run()) {
            int port = ((WebServerApplicationContext) app).getWebServer().getPort();

            assertThat(observer.directDiscovery().getInstances("bound")).singleElement().satisfies(instance -> {
                assertThat(instance.host()).isEqualTo("127.0.0.2");
                assertThat(instance.instanceId()).isEqualTo("127.0.0.2:" + port);
            });
        }
    }

    @Test
    void shutdownTakesTheInstanceOutOfServiceBeforeThePortClosesAndDeregistersItAfterRequestsFinish() {
        List<ServiceEvent> events = new CopyOnWriteArrayList<>();
        try (Subscription ignored = observer.discovery().subscribe("cart", events::add)) {
            ConfigurableApplicationContext app = start("cart");
            int port = ((WebServerApplicationContext) app).getWebServer().getPort();
            PortProbe probe = app.getBean(PortProbe.class);
            probe.watch(port);

            app.close();

            assertThat(probe.upWhenShutdownBegan).as("UP instances when the graceful shutdown began").isEmpty();
            assertThat(probe.registeredWhenShutdownBegan).as("still registered then, for requests in flight")
                    .extracting(ServiceInstance::status).containsExactly(InstanceStatus.OUT_OF_SERVICE);
            assertThat(probe.portOpenWhenShutdownBegan).as("port still open then").isTrue();
            assertThat(observer.directDiscovery().getInstances("cart")).as("after the context closed").isEmpty();
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(events)
                    .extracting(event -> event.getClass().getSimpleName() + (event instanceof InstanceUpdated u
                            ? ":" + u.instance().status() : ""))
                    .containsExactly(InstanceRegistered.class.getSimpleName(),
                            InstanceUpdated.class.getSimpleName() + ":" + InstanceStatus.OUT_OF_SERVICE,
                            InstanceDeregistered.class.getSimpleName()));
        }
    }

    private ConfigurableApplicationContext start(String name) {
        return new SpringApplicationBuilder(App.class).properties("server.port=0", "spring.application.name=" + name,
                "lodestar.redis-uri=" + TestRedis.standalone().uri(), "lodestar.namespace=" + NAMESPACE,
                "lodestar.reconcile-interval=1h", "lodestar.registration.host=127.0.0.1").run();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        PortProbe portProbe() {
            return new PortProbe();
        }
    }

    /**
     * Stops right before the web server's graceful shutdown, which stops accepting connections at once and then
     * waits for requests in flight: records what a consumer sees at that moment.
     */
    static class PortProbe implements SmartLifecycle {
        private final LodestarClient reader = RedisLodestar.create(LodestarOptions.builder(TestRedis.standalone()
                .uri()).namespace(NAMESPACE).reconcileInterval(Duration.ofHours(1)).build());
        private volatile boolean running;
        private volatile int port;
        volatile List<ServiceInstance> upWhenShutdownBegan;
        volatile List<ServiceInstance> registeredWhenShutdownBegan;
        volatile boolean portOpenWhenShutdownBegan;

        void watch(int port) {
            this.port = port;
        }

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            running = false;
            upWhenShutdownBegan = reader.directDiscovery().getInstances("cart", InstanceFilter.UP);
            registeredWhenShutdownBegan = reader.directDiscovery().getInstances("cart");
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                portOpenWhenShutdownBegan = true;
            } catch (IOException e) {
                portOpenWhenShutdownBegan = false;
            } finally {
                reader.close();
            }
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public int getPhase() {
            return WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE + 1;
        }
    }
}
