package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.StartupMode;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console follows each service over Redis only while a page watches (an event stream is open): when the last
 * page leaves, it releases its per-service subscriptions, so Redis drops the channels once the SDK's (here short)
 * idle timeout passes; a page that comes back gets a fresh read. In process, against a real Redis, so the console's
 * client can have a short idle timeout.
 */
class ConsoleSubscriptionsIT {
    private static final Duration BOUND = Duration.ofSeconds(15);
    private static final String TOKEN = "subscriptions-token";
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private final RedisServer redis = TestRedis.standalone();
    private final String namespace = "console-subs-" + UUID.randomUUID().toString().substring(0, 8);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private LodestarClient client;
    private ConsoleServer console;
    private RedisClient raw;
    private StatefulRedisConnection<String, String> redisCli;

    @BeforeEach
    void start() throws IOException {
        register("orders-1");
        client = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace)
                .idleViewTimeout(Duration.ofMillis(300)).startupMode(StartupMode.OFFLINE).build());
        console = new ConsoleServer(List.of(client), new InetSocketAddress(LOOPBACK, 0),
                new RequestGuard.Access(Users.ofTokens(TOKEN, null), false, AllowedHosts.of(LOOPBACK, List.of())),
                null, new PrintStream(OutputStream.nullOutputStream()));
        console.start();
        raw = RedisClient.create(redis.uri());
        redisCli = raw.connect();
    }

    @AfterEach
    void close() {
        console.close();
        client.close();
        redisCli.close();
        raw.shutdown();
    }

    /**
     * A persistent instance, from a client closed at once: the console's client is then the only one that follows
     * the service's channel.
     */
    private void register(String id) {
        try (LodestarClient other = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace)
                .build())) {
            other.registry().register(ServiceInstance.builder("orders", id).host("10.0.0.7").port(8080).persistent()
                    .build());
        }
    }

    /** The shard channels of the service's events that some client of Redis still listens to. */
    private List<String> channelsOf(String service) {
        return redisCli.sync().pubsubShardChannels("lodestar:{" + namespace + ":*").stream()
                .filter(channel -> channel.endsWith(":" + service + ":events")).toList();
    }

    @Test
    void whenTheLastPageLeavesTheServicesChannelsAreReleased() throws Exception {
        try (Page page = Page.open(http, console)) {
            assertThat(page.next("state").get("services")).hasSize(1);
            await("orders followed").atMost(BOUND).untilAsserted(() -> assertThat(channelsOf("orders")).hasSize(1));
        }

        await("orders' channel released").atMost(BOUND).untilAsserted(() -> assertThat(channelsOf("orders"))
                .isEmpty());
    }

    @Test
    void aPageThatComesBackSeesWhatChangedWhileNoneWatched() throws Exception {
        try (Page page = Page.open(http, console)) {
            page.next("state");
        }
        await("orders' channel released").atMost(BOUND).untilAsserted(() -> assertThat(channelsOf("orders"))
                .isEmpty());
        register("orders-2");

        try (Page page = Page.open(http, console)) {
            assertThat(page.next("state").get("services").get(0).get("instances").asInt()).isEqualTo(2);
            await("orders followed again").atMost(BOUND).untilAsserted(() -> assertThat(channelsOf("orders"))
                    .hasSize(1));
            register("orders-3");

            await("orders-3 pushed").atMost(BOUND).until(() -> page.next("service").get("instances").size() == 3);
        }
    }

    @Test
    void aPageHearsAnEvictAsAnEvict() throws Exception {
        try (Page page = Page.open(http, console)) {
            // given a page that shows orders-1
            await("orders-1 shown").atMost(BOUND).until(() -> page.next("service").get("instances").size() == 1);

            // when an operator evicts it
            client.registry().evict("orders", "orders-1");

            // then the page hears how it left
            JsonNode removed = page.next("removed");
            assertThat(removed.get("service").asText()).isEqualTo("orders");
            assertThat(removed.get("id").asText()).isEqualTo("orders-1");
            assertThat(removed.get("change").asText()).isEqualTo("evicted");
        }
    }

    @Test
    void aPageHearsADeregisterAsADeregister() throws Exception {
        try (Page page = Page.open(http, console)) {
            await("orders-1 shown").atMost(BOUND).until(() -> page.next("service").get("instances").size() == 1);

            client.registry().deregister("orders", "orders-1");

            assertThat(page.next("removed").get("change").asText()).isEqualTo("deregistered");
        }
    }

    /** A page's event stream: its events, read by a thread of its own, until closed. */
    private static final class Page implements AutoCloseable {
        private final InputStream body;
        private final LinkedBlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();

        private Page(InputStream body) {
            this.body = body;
            Thread reader = new Thread(this::read, "page-events");
            reader.setDaemon(true);
            reader.start();
        }

        static Page open(HttpClient http, ConsoleServer console) throws Exception {
            HttpResponse<InputStream> response = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + console.port() + "/api/events"))
                    .header("X-Lodestar-Token", TOKEN).build(), HttpResponse.BodyHandlers.ofInputStream());
            assertThat(response.statusCode()).isEqualTo(200);
            return new Page(response.body());
        }

        private void read() {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                String event = "";
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (line.startsWith("event: ")) {
                        event = line.substring(7);
                    } else if (line.startsWith("data: ")) {
                        events.add(Output.Mappers.JSON.createObjectNode().put("event", event)
                                .set("data", Output.Mappers.JSON.readTree(line.substring(6))));
                    }
                }
            } catch (IOException closed) {
                // the test closed the page
            }
        }

        /** The data of the next event of that kind (others are skipped), waiting at most {@link #BOUND}. */
        JsonNode next(String kind) throws InterruptedException {
            long deadline = System.nanoTime() + BOUND.toNanos();
            for (long left = BOUND.toNanos(); left > 0; left = deadline - System.nanoTime()) {
                JsonNode event = events.poll(left, TimeUnit.NANOSECONDS);
                if (event != null && event.get("event").asText().equals(kind)) {
                    return event.get("data");
                }
            }
            throw new AssertionError("no '" + kind + "' event within " + BOUND);
        }

        @Override
        public void close() throws IOException {
            body.close();
        }
    }
}
