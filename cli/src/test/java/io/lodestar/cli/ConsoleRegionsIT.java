package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console's API by region ({@code --home east --remote west=URI}), without a browser: the real jar against two
 * local Redis servers, east (home, the {@code --uri} one) and west (a remote region, read-only in the console).
 */
class ConsoleRegionsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "a-token-given";
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final String namespace = "console-regions-" + UUID.randomUUID().toString().substring(0, 8);
    private final RedisServer east = TestRedis.standalone();
    private final RedisServer west = TestRedis.startStandalone();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private LodestarClient inEast;
    private LodestarClient inWest;
    private ConsoleProcess console;

    @BeforeEach
    void connect() {
        inEast = RedisLodestar.create(LodestarOptions.builder(east.uri()).namespace(namespace).region("east").build());
        // west's instances stay when its client closes: the server itself goes when a test takes west down
        inWest = RedisLodestar.create(LodestarOptions.builder(west.uri()).namespace(namespace).region("west")
                .deregisterOnClose(false).build());
    }

    @AfterEach
    void close() {
        if (console != null) {
            console.close();
        }
        inEast.close();
        inWest.close();
        west.close();
    }

    private void startConsole() {
        console = new ConsoleProcess(east.uri(), namespace, "--token", TOKEN, "--home", "east", "--remote",
                "west=" + west.uri());
    }

    private static void register(LodestarClient client, String id) {
        register(client, "orders", id);
    }

    private static void register(LodestarClient client, String service, String id) {
        client.registry().register(ServiceInstance.builder(service, id).host("10.0.0.7").port(8080).build());
    }

    private JsonNode get(String path) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(console.url() + path))
                .timeout(Duration.ofSeconds(20)).header("X-Lodestar-Token", TOKEN).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    /** "region id writable" per instance of orders in {@code region}, in the order answered. */
    private List<String> instances(String region) throws Exception {
        List<String> rows = new ArrayList<>();
        get("api/region/service?region=" + region + "&id=orders").get("instances").forEach(instance -> rows.add(
                instance.get("region").asText() + " " + instance.get("id").asText() + " "
                        + instance.get("writable").asBoolean()));
        return rows;
    }

    private JsonNode region(String name) throws Exception {
        for (JsonNode region : get("api/regions").get("regions")) {
            if (region.get("name").asText().equals(name)) {
                return region;
            }
        }
        throw new AssertionError("no region " + name);
    }

    @Test
    void everyRegionsInstancesAreListedWithTheirRegionAndOnlyHomesAreWritable() throws Exception {
        // given
        register(inEast, "orders-e");
        register(inWest, "orders-w");

        // when
        startConsole();

        // then
        await("west's instances in the console").atMost(WAIT).ignoreExceptions().untilAsserted(() ->
                assertThat(instances("*")).containsExactly("east orders-e true", "west orders-w false"));
        assertThat(instances("east")).containsExactly("east orders-e true");
        assertThat(instances("west")).containsExactly("west orders-w false");
        JsonNode regions = get("api/regions");
        assertThat(regions.get("home").asText()).isEqualTo("east");
        assertThat(regions.get("regions").findValuesAsText("name")).containsExactly("east", "west");
        assertThat(region("west").get("services").get(0).get("service").asText()).isEqualTo("orders");
    }

    @Test
    void aRemoteRegionWhoseRedisIsDownIsMarkedStaleAndHomeIsNot() throws Exception {
        // given
        register(inEast, "orders-e");
        register(inWest, "orders-w");
        startConsole();
        await("west read").atMost(WAIT).ignoreExceptions().untilAsserted(() ->
                assertThat(instances("west")).containsExactly("west orders-w false"));

        // when
        west.close();

        // then west turns stale and still shows what it last held; east is current
        await("west stale").atMost(WAIT).untilAsserted(() -> assertThat(region("west").get("stale").asBoolean())
                .isTrue());
        assertThat(region("east").get("stale").asBoolean()).isFalse();
        assertThat(get("api/state").get("stale").asBoolean()).isFalse();
        assertThat(instances("west")).containsExactly("west orders-w false");
        assertThat(instances("east")).containsExactly("east orders-e true");
    }

    @Test
    void aWriteToARemoteRegionIsRefusedNamingTheRegionAndChangesNothing() throws Exception {
        // given
        register(inWest, "orders-w");
        startConsole();

        // when
        HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create(console.url()
                        + "api/instance/status?service=orders&id=orders-w&region=west"))
                .timeout(Duration.ofSeconds(20)).header("X-Lodestar-Token", TOKEN)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"status\":\"out-of-service\"}")).build(),
                HttpResponse.BodyHandlers.ofString());

        // then
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(refused.body()).get("message").asText()).isEqualTo("region west is read-only in"
                + " this console, which writes only to its home region east: change west's instances from a console"
                + " on west's own Redis");
        assertThat(inWest.directDiscovery().getInstances("orders")).extracting(ServiceInstance::status)
                .containsExactly(InstanceStatus.UP);
    }

    @Test
    void theHomePagesShowHomesInstancesOnlyNotTheRemoteOnesAFailoverWouldAdd() throws Exception {
        // given orders only in west: the SDK's discovery() would fail over to it
        register(inWest, "orders-w");
        register(inEast, "billing", "billing-e");
        startConsole();
        await("west read").atMost(WAIT).ignoreExceptions().untilAsserted(() ->
                assertThat(instances("west")).containsExactly("west orders-w false"));

        // when
        HttpResponse<String> home = http.send(HttpRequest.newBuilder(URI.create(console.url()
                        + "api/service?id=orders")).timeout(Duration.ofSeconds(20))
                .header("X-Lodestar-Token", TOKEN).build(), HttpResponse.BodyHandlers.ofString());

        // then
        assertThat(home.statusCode()).as(home.body()).isEqualTo(404);
        assertThat(get("api/state").get("services").findValuesAsText("service")).containsExactly("billing");
    }

    @Test
    void aRemoteRegionWithoutAHomeIsAUsageError() {
        CliJar.Result result = CliJar.run(Map.of(), "", "--uri", east.uri(), "--namespace", namespace, "console",
                "--port", "0", "--remote", "west=" + west.uri());

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.err()).contains("--remote needs --home, the name of the --uri region, but only --remote west"
                + " was given");
    }
}
