package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.TestRedis;
import io.lodestar.test.TlsRedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** A TLS-only Redis through one {@code rediss://} URI; a plain URI to it fails clearly instead of hanging. */
class TlsIT {
    private static final List<String> TRUST_PROPERTIES = List.of(
            "javax.net.ssl.trustStore", "javax.net.ssl.trustStorePassword", "javax.net.ssl.trustStoreType");

    private TlsRedisServer redis;

    @BeforeEach
    void privateTlsRedis() {
        redis = TestRedis.startTls(); // aborts (skips) the test if redis-server was built without TLS
    }

    @AfterEach
    void stopRedis() {
        redis.close();
    }

    @Test
    void registersDiscoversAndListensOverTls() {
        try (Clients clients = new Clients(redis.uri())) { // rediss://…?verifyPeer=NONE
            assertRegistersDiscoversAndListens(clients);
        }
    }

    @Test
    void aVerifyingRedissUriWorksWhenTheJvmTrustsTheServersCa() {
        // the production set-up: full verification (chain and host name), trust from the JVM's trust store
        Map<String, String> saved = new HashMap<>();
        TRUST_PROPERTIES.forEach(name -> saved.put(name, System.getProperty(name)));
        System.setProperty("javax.net.ssl.trustStore", redis.trustStore().toString());
        System.setProperty("javax.net.ssl.trustStorePassword", redis.trustStorePassword());
        System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
        try (Clients clients = new Clients("rediss://127.0.0.1:" + redis.port())) {
            assertRegistersDiscoversAndListens(clients);
        } finally {
            saved.forEach((name, value) -> {
                if (value == null) {
                    System.clearProperty(name);
                } else {
                    System.setProperty(name, value);
                }
            });
        }
    }

    @Test
    void aPrivateCaCanBeTrustedThroughTheOptionsAloneWithFullVerification() {
        String verifying = "rediss://127.0.0.1:" + redis.port();
        try (Clients clients = new Clients(verifying, options ->
                options.tlsTrustedCertificates(redis.caCertificate()))) {
            assertRegistersDiscoversAndListens(clients);
        }
    }

    @Test
    void aVerifyingRedissUriRejectsAServerWhoseCaTheJvmDoesNotTrust() {
        String verifying = "rediss://127.0.0.1:" + redis.port();
        LodestarOptions options = LodestarOptions.builder(verifying).commandTimeout(Duration.ofSeconds(2)).build();

        assertTimeoutPreemptively(Duration.ofSeconds(10), () ->
                assertThatThrownBy(() -> RedisLodestar.create(options).close())
                        .isInstanceOf(UnavailableException.class)
                        .hasMessageContaining("Cannot connect to Redis at " + verifying)
                        .hasMessageContaining("unable to find valid certification path"));
    }

    @Test
    void aPlainUriToTheTlsPortFailsClearlyInsteadOfHanging() {
        String plain = "redis://127.0.0.1:" + redis.port();
        LodestarOptions options = LodestarOptions.builder(plain).commandTimeout(Duration.ofSeconds(2)).build();

        assertTimeoutPreemptively(Duration.ofSeconds(10), () ->
                assertThatThrownBy(() -> RedisLodestar.create(options).close())
                        .isInstanceOf(UnavailableException.class)
                        .hasMessageContaining("Cannot connect to Redis at " + plain));
    }

    private static void assertRegistersDiscoversAndListens(Clients clients) {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        List<ServiceEvent> events = new CopyOnWriteArrayList<>();
        reader.discovery().subscribe("orders", events::add);
        await().atMost(Duration.ofSeconds(5)).until(() -> !reader.discovery().status().stale());

        writer.registry().register(instance("orders", "orders-1"));

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(events).singleElement().isInstanceOf(InstanceRegistered.class));
        assertThat(reader.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                .containsExactly("orders-1");
        assertThat(reader.directDiscovery().getInstances("orders"))
                .isEqualTo(reader.discovery().getInstances("orders"));
    }
}
