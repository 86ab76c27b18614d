package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lodestar.core.ConfigKeys;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestKeysets;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console's HTTP API and its safety rules, without a browser: the real jar against a real Redis. The tests run
 * two at a time (see junit-platform.properties): each starts its own console on a free port, for its own namespace,
 * with its own files, and reads only that console's output.
 */
class ConsoleIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "a-token-given";
    private static final String READ_TOKEN = "a-read-token";
    private static final String SET_V2 = "{\"content\":\"v2\",\"format\":\"TEXT\",\"expectedVersion\":1}";
    private final RedisServer redis = TestRedis.standalone();
    private final String namespace = "console-" + UUID.randomUUID().toString().substring(0, 8);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private LodestarClient sdk;
    private ConsoleProcess console;

    @BeforeEach
    void connect() {
        sdk = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace).build());
        sdk.config().set("orders/limits", "v1", ConfigFormat.TEXT);
    }

    @AfterEach
    void close() {
        if (console != null) {
            console.close();
        }
        sdk.close();
    }

    private HttpResponse<String> post(String path, String token, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(console.url() + path))
                .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("X-Lodestar-Token", token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(console.url() + path))
                .timeout(Duration.ofSeconds(20));
        if (token != null) {
            request.header("X-Lodestar-Token", token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A request as another program (or a browser on another page) can send it: any Host, any headers. */
    private String rawStatusLine(String method, String path, String host, String... headers) throws IOException {
        URI uri = URI.create(console.url());
        try (Socket socket = new Socket("127.0.0.1", uri.getPort())) {
            socket.setSoTimeout(10_000);
            StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n");
            for (String header : headers) {
                request.append(header).append("\r\n");
            }
            request.append("Content-Length: 0\r\nConnection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void bindsToLoopbackAndPrintsAWriteTokenThatWorks() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace);

        HttpResponse<String> refused = post("api/config/set?id=orders/limits", "wrong-token-123",
                "{\"content\":\"v2\",\"format\":\"TEXT\",\"expectedVersion\":1}");
        HttpResponse<String> accepted = post("api/config/set?id=orders/limits", console.printedToken(),
                "{\"content\":\"v2\",\"format\":\"TEXT\",\"expectedVersion\":1}");
        HttpResponse<String> conflict = post("api/config/set?id=orders/limits", console.printedToken(),
                "{\"content\":\"v3\",\"format\":\"TEXT\",\"expectedVersion\":1}");

        assertThat(console.url()).startsWith("http://127.0.0.1:");
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(200);
        assertThat(conflict.statusCode()).isEqualTo(409);
        assertThat(JSON.readTree(conflict.body()).get("currentVersion").asLong()).isEqualTo(2);
        assertThat(sdk.config().get("orders/limits").orElseThrow().content()).isEqualTo("v2");
        await("the audit lines").atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(console.output())
                .contains("AUDIT who=anonymous@127.0.0.1 action=config.set target=orders/limits refused: no valid"
                        + " token")
                .contains("AUDIT who=token@127.0.0.1 action=config.set target=orders/limits done: orders/limits"
                        + " -> version 2")
                .contains("action=config.set target=orders/limits failed: Conflict"));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void readOnlyRefusesEveryWriteAndPrintsNoToken() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--read-only", "--token", "a-token-given");

        HttpResponse<String> write = post("api/config/rollback?id=orders/limits", "a-token-given",
                "{\"version\":1}");

        assertThat(write.statusCode()).isEqualTo(403);
        assertThat(console.output()).contains("Read-only").doesNotContain("a-token-given");
        assertThat(sdk.config().get("orders/limits").orElseThrow().version()).isEqualTo(1);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aRequestForAnotherHostIsRefused() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);

        String status = rawStatusLine("GET", "/api/state", "attacker.example:80", "X-Lodestar-Token: " + TOKEN);

        assertThat(status).startsWith("HTTP/1.1 403");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void readingAConfigNeedsAToken() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);

        HttpResponse<String> anonymous = get("api/config?id=orders/limits", null);
        HttpResponse<String> wrong = get("api/config?id=orders/limits", "not-the-token");
        HttpResponse<InputStream> stream = http.send(HttpRequest.newBuilder(URI.create(console.url() + "api/events"))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofInputStream());
        stream.body().close(); // before the status is checked: an open stream never ends

        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.body()).doesNotContain("v1");
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(stream.statusCode()).isEqualTo(401);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void theWriteTokenAlsoReads() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);

        HttpResponse<String> read = get("api/config?id=orders/limits", TOKEN);

        assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
        assertThat(JSON.readTree(read.body()).get("current").get("content").asText()).isEqualTo("v1");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aReadTokenFromTheEnvironmentReadsButDoesNotWrite() throws Exception {
        console = new ConsoleProcess(Map.of("LODESTAR_CONSOLE_READ_TOKEN", READ_TOKEN), redis.uri(), namespace,
                "--token", TOKEN);

        HttpResponse<String> read = get("api/config?id=orders/limits", READ_TOKEN);
        HttpResponse<String> write = post("api/config/set?id=orders/limits", READ_TOKEN,
                "{\"content\":\"v2\",\"format\":\"TEXT\"}");

        assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
        assertThat(JSON.readTree(read.body()).get("current").get("content").asText()).isEqualTo("v1");
        assertThat(write.statusCode()).isEqualTo(403);
        assertThat(sdk.config().get("orders/limits").orElseThrow().version()).isEqualTo(1);
        assertThat(console.output()).doesNotContain(READ_TOKEN).doesNotContain(TOKEN);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void boundBeyondLoopbackItStillRefusesAnotherHost() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN, "--bind", "0.0.0.0",
                "--insecure-plain-http");

        String status = rawStatusLine("GET", "/api/config?id=orders/limits", "rebound.attacker.example",
                "X-Lodestar-Token: " + TOKEN);

        assertThat(status).startsWith("HTTP/1.1 403");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void boundBeyondLoopbackItAnswersToTheNamesItWasGiven() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN, "--bind", "0.0.0.0",
                "--insecure-plain-http", "--allow-host", "Console.Example");

        String named = rawStatusLine("GET", "/api/config?id=orders/limits", "console.example:8443",
                "X-Lodestar-Token: " + TOKEN);
        String other = rawStatusLine("GET", "/api/config?id=orders/limits", "other.example",
                "X-Lodestar-Token: " + TOKEN);

        assertThat(named).startsWith("HTTP/1.1 200");
        assertThat(other).startsWith("HTTP/1.1 403");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aRequestFromAPageOfAnotherSiteIsRefused() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);

        String foreign = rawStatusLine("GET", "/api/config?id=orders/limits", "127.0.0.1",
                "X-Lodestar-Token: " + TOKEN, "Origin: http://attacker.example");
        String sandboxed = rawStatusLine("GET", "/api/config?id=orders/limits", "127.0.0.1",
                "X-Lodestar-Token: " + TOKEN, "Origin: null");
        String own = rawStatusLine("GET", "/api/config?id=orders/limits", "127.0.0.1",
                "X-Lodestar-Token: " + TOKEN, "Origin: http://localhost:9999");

        assertThat(foreign).startsWith("HTTP/1.1 403");
        assertThat(sandboxed).startsWith("HTTP/1.1 403");
        assertThat(own).startsWith("HTTP/1.1 200");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aTokenFromTheEnvironmentWritesAndIsNeverPrinted() throws Exception {
        console = new ConsoleProcess(Map.of("LODESTAR_CONSOLE_TOKEN", "token-from-the-environment"), redis.uri(),
                namespace);

        HttpResponse<String> write = post("api/config/set?id=orders/limits", "token-from-the-environment",
                "{\"content\":\"v2\",\"format\":\"TEXT\",\"expectedVersion\":1}");

        assertThat(write.statusCode()).as(write.body()).isEqualTo(200);
        assertThat(console.output()).doesNotContain("token-from-the-environment")
                .contains("$LODESTAR_CONSOLE_TOKEN").doesNotContain("Token (paste");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aTokenFileOnlyItsOwnerMayReadWorks(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("console.token"), "token-from-a-file\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        console = new ConsoleProcess(redis.uri(), namespace, "--token-file", file.toString());

        HttpResponse<String> write = post("api/config/set?id=orders/limits", "token-from-a-file",
                "{\"content\":\"v2\",\"format\":\"TEXT\",\"expectedVersion\":1}");

        assertThat(write.statusCode()).as(write.body()).isEqualTo(200);
        assertThat(console.output()).doesNotContain("token-from-a-file");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aTokenFileOthersMayReadIsRefused(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("console.token"), "token-from-a-file\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

        CliJar.Result result = CliJar.run(Map.of(), "", "--uri", redis.uri(), "--namespace", namespace, "console",
                "--port", "0", "--token-file", file.toString());

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.err()).contains("the token file " + file + " must be accessible to its owner only"
                + " (chmod 600), but was rw-r--r--").doesNotContain("token-from-a-file");
    }

    /** A users file only its owner may read: alice reads, bob writes, carol administers; dave is elsewhere. */
    private Path users(Path dir) throws Exception {
        return TestUsers.file(dir, """
                users:
                  alice: {token: alice-token-1, roles: {%1$s: read}}
                  bob: {token: %2$s, roles: {"*": write}}
                  carol: {token: carol-token-1, roles: {%1$s: admin}}
                  dave: {token: dave-token-1, roles: {elsewhere: admin}}
                """.formatted(namespace, TestUsers.sha256("bob-token-12")));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void eachUserMayDoWhatTheirRoleInTheNamespaceAllows(@TempDir Path dir) throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--users", users(dir).toString());

        HttpResponse<String> aliceReads = get("api/config?id=orders/limits", "alice-token-1");
        HttpResponse<String> aliceWrites = post("api/config/set?id=orders/limits", "alice-token-1", SET_V2);
        HttpResponse<String> bobWrites = post("api/config/set?id=orders/limits", "bob-token-12", SET_V2);
        HttpResponse<String> bobDeletes = post("api/config/delete?id=orders/limits", "bob-token-12", "{}");
        HttpResponse<String> carolDeletes = post("api/config/delete?id=orders/limits", "carol-token-1", "{}");

        assertThat(aliceReads.statusCode()).as(aliceReads.body()).isEqualTo(200);
        assertThat(aliceWrites.statusCode()).as(aliceWrites.body()).isEqualTo(403);
        assertThat(bobWrites.statusCode()).as(bobWrites.body()).isEqualTo(200);
        assertThat(JSON.readTree(bobDeletes.body()).get("message").asText()).isEqualTo("this needs the role admin"
                + " in namespace " + namespace + ", and bob has write");
        assertThat(bobDeletes.statusCode()).isEqualTo(403);
        assertThat(carolDeletes.statusCode()).as(carolDeletes.body()).isEqualTo(200);
        assertThat(sdk.config().get("orders/limits")).isEmpty();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aUserRemovedFromTheUsersFileIsRefusedWithinSecondsWithoutARestart(@TempDir Path dir) throws Exception {
        // given a console whose users file lets bob write
        Path file = users(dir);
        console = new ConsoleProcess(redis.uri(), namespace, "--users", file.toString());
        assertThat(get("api/config?id=orders/limits", "bob-token-12").statusCode()).isEqualTo(200);

        // when an operator removes bob from the file
        Files.writeString(file, Files.readString(file).lines().filter(line -> !line.contains("bob:"))
                .map(line -> line + "\n").collect(Collectors.joining()));

        // then bob's requests are refused within seconds, alice's still answered, and the console says why
        await("bob refused").atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                get("api/config?id=orders/limits", "bob-token-12").statusCode()).isEqualTo(401));
        assertThat(get("api/config?id=orders/limits", "alice-token-1").statusCode()).isEqualTo(200);
        assertThat(console.output()).contains("the users file " + file + " changed: 3 users");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void theAuditLogNamesTheUserTheTokenBelongsTo(@TempDir Path dir) throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--users", users(dir).toString());

        HttpResponse<String> refused = post("api/config/set?id=orders/limits", "alice-token-1", SET_V2);
        HttpResponse<String> done = http.send(HttpRequest.newBuilder(URI.create(console.url()
                        + "api/config/set?id=orders/limits")).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json").header("X-Lodestar-Token", "bob-token-12")
                .header("X-Lodestar-Operator", "mallory").POST(HttpRequest.BodyPublishers.ofString(SET_V2)).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        await("the audit lines").atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(console.output())
                .contains("AUDIT who=alice@127.0.0.1 action=config.set target=orders/limits refused: needs write,"
                        + " has read")
                .contains("AUDIT who=bob@127.0.0.1 action=config.set target=orders/limits done"));
        assertThat(console.output()).doesNotContain("mallory").doesNotContain("token-1").doesNotContain("token-12");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aUserWithoutARoleInTheNamespaceSeesNothingOfIt(@TempDir Path dir) throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--users", users(dir).toString());

        HttpResponse<String> config = get("api/config?id=orders/limits", "dave-token-1");
        HttpResponse<String> me = get("api/me", "dave-token-1");

        assertThat(config.statusCode()).isEqualTo(403);
        assertThat(config.body()).doesNotContain("v1");
        assertThat(me.statusCode()).as(me.body()).isEqualTo(200);
        assertThat(JSON.readTree(me.body()).get("namespaces")).isEmpty();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void thePageAsksWhoItsTokenNamesAndWhatTheyMayDo(@TempDir Path dir) throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--users", users(dir).toString());

        JsonNode me = JSON.readTree(get("api/me", "bob-token-12").body());

        assertThat(me.get("user").asText()).isEqualTo("bob");
        assertThat(me.get("namespaces")).hasSize(1);
        assertThat(me.get("namespaces").get(0).get("name").asText()).isEqualTo(namespace);
        assertThat(me.get("namespaces").get(0).get("role").asText()).isEqualTo("write");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void oneConsoleServesSeveralNamespacesEachUserSeeingTheirs(@TempDir Path dir) throws Exception {
        String other = namespace + "-b";
        try (LodestarClient otherSdk = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(other)
                .build())) {
            otherSdk.config().set("billing/rates", "vat: 0.2", ConfigFormat.YAML);
            console = new ConsoleProcess(redis.uri(), namespace, "--namespaces", namespace + "," + other,
                    "--users", users(dir).toString());

            JsonNode aliceSees = JSON.readTree(get("api/me", "alice-token-1").body()).get("namespaces");
            JsonNode bobSees = JSON.readTree(get("api/me", "bob-token-12").body()).get("namespaces");
            HttpResponse<String> aliceElsewhere = get("api/configs?ns=" + other, "alice-token-1");
            HttpResponse<String> bobElsewhere = get("api/configs?ns=" + other, "bob-token-12");
            HttpResponse<String> notServed = get("api/configs?ns=nosuch", "bob-token-12");
            HttpResponse<String> bobWrites = post("api/config/set?ns=" + other + "&id=billing/rates",
                    "bob-token-12", "{\"content\":\"vat: 0.25\",\"format\":\"YAML\",\"expectedVersion\":1}");

            assertThat(aliceSees).extracting(n -> n.get("name").asText()).containsExactly(namespace);
            assertThat(bobSees).extracting(n -> n.get("name").asText()).containsExactly(namespace, other);
            assertThat(aliceElsewhere.statusCode()).isEqualTo(403);
            assertThat(bobElsewhere.statusCode()).as(bobElsewhere.body()).isEqualTo(200);
            assertThat(JSON.readTree(bobElsewhere.body())).extracting(c -> c.get("id").asText())
                    .containsExactly("billing/rates");
            assertThat(notServed.statusCode()).isEqualTo(404);
            assertThat(JSON.readTree(notServed.body()).get("message").asText())
                    .isEqualTo("This console does not serve namespace 'nosuch'");
            assertThat(bobWrites.statusCode()).as(bobWrites.body()).isEqualTo(200);
            assertThat(otherSdk.config().get("billing/rates").orElseThrow().content()).isEqualTo("vat: 0.25");
            await("the audit line").atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(console.output())
                    .contains("AUDIT who=bob@127.0.0.1 namespace=" + other + " action=config.set"
                            + " target=billing/rates done"));
            assertThat(JSON.readTree(get("api/audit?ns=" + other, "bob-token-12").body())).hasSize(1);
            assertThat(JSON.readTree(get("api/audit", "bob-token-12").body())).isEmpty();
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void usersAndASharedTokenTogetherAreRefused(@TempDir Path dir) throws Exception {
        CliJar.Result result = CliJar.run(Map.of("LODESTAR_CONSOLE_TOKEN", "shared-token-1"), "", "--uri",
                redis.uri(), "--namespace", namespace, "console", "--port", "0", "--users", users(dir).toString());

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.err()).contains("give either --users or shared tokens, not both, but"
                + " $LODESTAR_CONSOLE_TOKEN was given too").doesNotContain("shared-token-1");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void beyondLoopbackWithoutTlsItRefusesToStart() {
        CliJar.Result result = CliJar.run(Map.of(), "", "--uri", redis.uri(), "--namespace", namespace, "console",
                "--port", "0", "--token", TOKEN, "--bind", "0.0.0.0");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.err()).contains("--bind 0.0.0.0 listens beyond this machine, where tokens and configs"
                + " must not cross the network in the clear: give --tls-cert and --tls-key, or --insecure-plain-http");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void withACertificateItServesHttpsOnly(@TempDir Path dir) throws Exception {
        TestCertificate certificate = TestCertificate.create(dir, "ec");
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN, "--bind", "0.0.0.0",
                "--tls-cert", certificate.certificate().toString(), "--tls-key", certificate.key().toString());
        URI local = URI.create(console.url().replace("0.0.0.0", "localhost"));
        HttpClient https = HttpClient.newBuilder().sslContext(certificate.trusted())
                .connectTimeout(Duration.ofSeconds(10)).build();

        HttpResponse<String> read = https.send(HttpRequest.newBuilder(local.resolve("api/config?id=orders/limits"))
                .header("X-Lodestar-Token", TOKEN).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        String plain;
        try {
            plain = rawStatusLine("GET", "/api/config?id=orders/limits", "localhost", "X-Lodestar-Token: " + TOKEN);
        } catch (IOException reset) {
            plain = null;
        }

        assertThat(console.url()).startsWith("https://0.0.0.0:");
        assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
        assertThat(JSON.readTree(read.body()).get("current").get("content").asText()).isEqualTo("v1");
        assertThat(String.valueOf(plain)).as("a plain HTTP request gets no HTTP answer").doesNotStartWith("HTTP/");
        assertThat(console.output()).doesNotContain("plain HTTP");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aKeyOthersMayReadIsRefused(@TempDir Path dir) throws Exception {
        TestCertificate certificate = TestCertificate.create(dir, "rsa:2048");
        Files.setPosixFilePermissions(certificate.key(), PosixFilePermissions.fromString("rw-r--r--"));

        CliJar.Result result = CliJar.run(Map.of(), "", "--uri", redis.uri(), "--namespace", namespace, "console",
                "--port", "0", "--token", TOKEN, "--tls-cert", certificate.certificate().toString(), "--tls-key",
                certificate.key().toString());

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.err()).contains("--tls-key " + certificate.key() + " must be accessible to its owner only"
                + " (chmod 600), but was rw-r--r--").doesNotContain("PRIVATE KEY");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void anInstancesMetadataIsChangedInOneUpdate(@TempDir Path dir) throws Exception {
        sdk.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080)
                .metadata("zone", "eu-1").metadata("canary", "true").build());
        console = new ConsoleProcess(redis.uri(), namespace, "--users", users(dir).toString());

        HttpResponse<String> answer = post("api/instance/metadata?service=orders&id=orders-1", "bob-token-12",
                "{\"put\":{\"zone\":\"eu-2\",\"version\":\"2.4\"},\"remove\":[\"canary\"]}");

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(sdk.directDiscovery().getInstance("orders", "orders-1").orElseThrow().metadata())
                .isEqualTo(Map.of("zone", "eu-2", "version", "2.4"));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void metadataThatIsNotStringsIsABadRequest(@TempDir Path dir) throws Exception {
        sdk.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080).build());
        console = new ConsoleProcess(redis.uri(), namespace, "--users", users(dir).toString());

        HttpResponse<String> answer = post("api/instance/metadata?service=orders&id=orders-1", "bob-token-12",
                "{\"put\":{\"weight\":5}}");

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
        assertThat(JSON.readTree(answer.body()).get("message").asText()).isEqualTo("put.weight must be a string,"
                + " but was 5");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aWriterChangesAnInstancesWeightAReaderMayNotAndTheAuditLogSaysWho(@TempDir Path dir) throws Exception {
        sdk.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080).build());
        console = new ConsoleProcess(redis.uri(), namespace, "--users", users(dir).toString());

        HttpResponse<String> refused = post("api/instance/weight?service=orders&id=orders-1", "alice-token-1",
                "{\"weight\":5}");
        HttpResponse<String> done = post("api/instance/weight?service=orders&id=orders-1", "bob-token-12",
                "{\"weight\":5}");

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        assertThat(JSON.readTree(done.body()).get("weight").asInt()).isEqualTo(5);
        assertThat(sdk.directDiscovery().getInstance("orders", "orders-1").orElseThrow().weight()).isEqualTo(5);
        await("the audit lines").atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(console.output())
                .contains("AUDIT who=alice@127.0.0.1 action=instance.weight target=orders/orders-1 refused: needs"
                        + " write, has read")
                .contains("AUDIT who=bob@127.0.0.1 action=instance.weight target=orders/orders-1 done:"
                        + " orders/orders-1 weight -> 5"));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aWeightThatIsNoNumberOrOutOfRangeIsABadRequestNamingTheRule(@TempDir Path dir) throws Exception {
        sdk.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080).build());
        console = new ConsoleProcess(redis.uri(), namespace, "--users", users(dir).toString());

        HttpResponse<String> tooHigh = post("api/instance/weight?service=orders&id=orders-1", "bob-token-12",
                "{\"weight\":10001}");
        HttpResponse<String> word = post("api/instance/weight?service=orders&id=orders-1", "bob-token-12",
                "{\"weight\":\"heavy\"}");

        assertThat(tooHigh.statusCode()).as(tooHigh.body()).isEqualTo(400);
        assertThat(JSON.readTree(tooHigh.body()).get("message").asText())
                .contains("weight must be between 0 and 10000, but was 10001");
        assertThat(word.statusCode()).as(word.body()).isEqualTo(400);
        assertThat(JSON.readTree(word.body()).get("message").asText())
                .isEqualTo("weight must be a whole number between 0 and 10000, but was 'heavy'");
        assertThat(sdk.directDiscovery().getInstance("orders", "orders-1").orElseThrow().weight()).isEqualTo(100);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void theWeightOfAnUnknownInstanceIsNotFound() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);

        HttpResponse<String> answer = post("api/instance/weight?service=orders&id=orders-9", TOKEN,
                "{\"weight\":5}");

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(404);
        assertThat(JSON.readTree(answer.body()).get("message").asText()).contains("No instance 'orders-9'");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void creatingAConfigThatExistsIsAConflict(@TempDir Path dir) throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--users", users(dir).toString());

        HttpResponse<String> created = post("api/config/set?id=orders/new", "bob-token-12",
                "{\"content\":\"a: 1\",\"format\":\"YAML\",\"expectedVersion\":0}");
        HttpResponse<String> taken = post("api/config/set?id=orders/limits", "bob-token-12",
                "{\"content\":\"a: 1\",\"format\":\"YAML\",\"expectedVersion\":0}");

        assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
        assertThat(taken.statusCode()).as(taken.body()).isEqualTo(409);
        assertThat(sdk.config().get("orders/limits").orElseThrow().content()).isEqualTo("v1");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aServiceWithoutInstancesIsNotFound() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);

        HttpResponse<String> answer = get("api/service?id=nosuch", TOKEN);

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(404);
        assertThat(JSON.readTree(answer.body()).get("message").asText()).contains("No instances of 'nosuch'");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aConfigThatNeverExistedIsNotFound() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);

        HttpResponse<String> answer = get("api/config?id=nosuch", TOKEN);

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(404);
        assertThat(JSON.readTree(answer.body()).get("message").asText()).isEqualTo("No config 'nosuch'");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aRemovedConfigIsShownWithItsHistory() throws Exception {
        sdk.config().remove("orders/limits");
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);

        HttpResponse<String> answer = get("api/config?id=orders/limits", TOKEN);

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(JSON.readTree(answer.body()).get("current").isNull()).isTrue();
        assertThat(JSON.readTree(answer.body()).get("history")).isNotEmpty();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void theConfigViewListsWhoRunsWhichVersionAndNotTheConsoleWatchingIt() throws Exception {
        // given a client of this JVM that applied the config
        sdk.config().get("orders/limits");
        await().atMost(Duration.ofSeconds(5)).until(() -> !sdk.config().applied("orders/limits").isEmpty());
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);

        // when the console shows the config
        HttpResponse<String> answer = get("api/config?id=orders/limits", TOKEN);

        // then its "who runs what" section lists that client with the version it applied, and not the console,
        // whose view of the config (it read it, and follows the namespace) is no application running it: the
        // console's record, were it sent, would be sent before this read on the console's own connection
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode applied = JSON.readTree(answer.body()).get("applied");
        assertThat(applied.findValuesAsText("pid")).containsExactly(String.valueOf(ProcessHandle.current().pid()));
        assertThat(applied.findValuesAsText("version")).containsOnly("1");
        assertThat(applied.findValuesAsText("variant")).containsOnly("main");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aWriteByAnotherClientAppearsInTheNamespacesChangesAndTheConfigsTrail() throws Exception {
        // given a console, and an application's client (not the console) that writes a config
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);
        sdk.config().set("orders/limits", "v2", ConfigFormat.TEXT);
        sdk.config().set("billing/rates", "vat=0.2", ConfigFormat.TEXT);

        // when the console shows the namespace's recent changes and the config's trail
        JsonNode changes = JSON.readTree(get("api/config/changes", TOKEN).body());
        JsonNode trail = JSON.readTree(get("api/config/log?id=orders/limits", TOKEN).body());

        // then both come from Redis, newest first, naming the writer (the two writes above may share a
        // millisecond, the finest order streams of different configs have: those two in either order)
        List<String> listed = new ArrayList<>();
        changes.forEach(c -> listed.add(c.get("id").asText() + "@" + c.get("version").asText()));
        assertThat(listed).containsExactlyInAnyOrder("billing/rates@1", "orders/limits@2", "orders/limits@1")
                .endsWith("orders/limits@1");
        changes.forEach(c -> {
            assertThat(c.get("operation").asText()).isEqualTo("set");
            assertThat(c.get("client").asText()).isEqualTo("lodestar");
        });
        assertThat(trail).extracting(c -> c.get("version").asLong()).containsExactly(2L, 1L);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void theConfigChangesOutliveAConsoleRestart() throws Exception {
        // given a write made through a console that then stops
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);
        assertThat(post("api/config/set?id=orders/limits", TOKEN, SET_V2).statusCode()).isEqualTo(200);
        console.close();

        // when another console starts
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);
        JsonNode changes = JSON.readTree(get("api/config/changes", TOKEN).body());

        // then it shows that write, by the console's client, beside the one before it
        assertThat(changes).extracting(c -> c.get("operation").asText() + " " + c.get("version").asText())
                .containsExactly("cas 2", "set 1");
        assertThat(changes.get(0).get("client").asText()).isEqualTo("lodestar-cli");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void anUnknownFormatIsABadRequestThatNamesTheFormats() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);

        HttpResponse<String> answer = post("api/config/set?id=orders/limits", TOKEN,
                "{\"content\":\"<a/>\",\"format\":\"XML\"}");

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
        assertThat(JSON.readTree(answer.body()).get("message").asText())
                .isEqualTo("format must be one of properties, yaml, json, text, but was 'XML'");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void anUnknownStatusIsABadRequest() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);
        sdk.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080).build());

        HttpResponse<String> answer = post("api/instance/status?service=orders&id=orders-1", TOKEN,
                "{\"status\":\"sideways\"}");

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
        assertThat(JSON.readTree(answer.body()).get("message").asText()).contains("sideways")
                .doesNotContain("io.lodestar");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aRequestCannotForgeAnAuditLine() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);
        String forged = "\r\n2026-01-01T00:00:00Z AUDIT who=admin@127.0.0.1 action=config.set target=orders/limits"
                + " done: forged";
        String encoded = URLEncoder.encode(forged, StandardCharsets.UTF_8).replace("+", "%20");

        String inQuery = rawStatusLine("POST", "/api/config/set?id=orders/limits" + encoded, "127.0.0.1");
        String inPath = rawStatusLine("POST", "/api/config/set" + encoded + "?id=orders/limits", "127.0.0.1");

        assertThat(inQuery).startsWith("HTTP/1.1 401");
        assertThat(inPath).startsWith("HTTP/1.1 401");
        await("both refusals in the audit log").atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                console.output().lines().filter(line -> line.contains("refused: no valid token"))).hasSize(2));
        assertThat(console.output().lines()).noneMatch(line -> line.startsWith("2026-01-01T00:00:00Z"));
        assertThat(console.output())
                .contains("target=\"orders/limits\\r\\n2026-01-01T00:00:00Z AUDIT who=admin@127.0.0.1")
                .contains("action=\"config.set\\r\\n2026-01-01T00:00:00Z AUDIT who=admin@127.0.0.1");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void anEventStreamThatStopsReadingIsDroppedAndHoldsUpNoOther() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);
        // events of about 160 KB each (40 instances, 4 KB of metadata each): some dozens fill the stalled
        // stream's socket buffers and its queue, while the reading stream stays far from its queue's bound
        for (int i = 0; i < 40; i++) {
            ServiceInstance.Builder bulky = ServiceInstance.builder("bulky", "bulky-" + i).host("10.0.0.7")
                    .port(8080 + i);
            for (int m = 0; m < 4; m++) {
                bulky.metadata("m" + m, "x".repeat(1000));
            }
            sdk.registry().register(bulky.build());
        }
        HttpResponse<InputStream> reading = http.send(HttpRequest.newBuilder(URI.create(console.url() + "api/events"))
                .header("X-Lodestar-Token", TOKEN).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        CompletableFuture<Boolean> sawLast = CompletableFuture.supplyAsync(() -> {
            try (BufferedReader events = new BufferedReader(new InputStreamReader(reading.body(),
                    StandardCharsets.UTF_8))) {
                for (String line = events.readLine(); line != null; line = events.readLine()) {
                    if (line.startsWith("data: ") && line.contains("\"bulky-last\"")) {
                        return true;
                    }
                }
                return false;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        URI uri = URI.create(console.url());
        try (Socket stalled = new Socket()) {
            stalled.setReceiveBufferSize(4096);
            stalled.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 10_000);
            stalled.getOutputStream().write(("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Lodestar-Token: "
                    + TOKEN + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            stalled.getOutputStream().flush();
            // a page that never reads again

            boolean[] up = {true};
            await("the stalled stream dropped").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                    .until(() -> {
                        up[0] = !up[0];
                        sdk.registry().setStatus("bulky", "bulky-0", up[0] ? InstanceStatus.UP
                                : InstanceStatus.OUT_OF_SERVICE);
                        return console.output().contains("console dropped the event stream of 127.0.0.1");
                    });
            sdk.registry().register(ServiceInstance.builder("bulky", "bulky-last").host("10.0.0.8").port(8080)
                    .build());

            assertThat(sawLast.get(30, TimeUnit.SECONDS)).as("the reading page heard of bulky-last").isTrue();
        } finally {
            reading.body().close();
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void theEventStreamPushesARegistration() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);
        HttpResponse<InputStream> stream = http.send(HttpRequest.newBuilder(URI.create(console.url() + "api/events"))
                .header("X-Lodestar-Token", TOKEN).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/event-stream"));
        try (BufferedReader events = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
            CompletableFuture<JsonNode> registered = CompletableFuture.supplyAsync(() -> {
                try {
                    String event = "";
                    for (String line = events.readLine(); line != null; line = events.readLine()) {
                        if (line.startsWith("event: ")) {
                            event = line.substring(7);
                        } else if (line.startsWith("data: ") && event.equals("service")) {
                            JsonNode data = JSON.readTree(line.substring(6));
                            if (data.get("instances").size() == 1) {
                                return data;
                            }
                        }
                    }
                    return null;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });

            sdk.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080)
                    .build());

            JsonNode service = registered.get(30, TimeUnit.SECONDS);
            assertThat(service.get("service").asText()).isEqualTo("orders");
            assertThat(service.get("instances").get(0).get("id").asText()).isEqualTo("orders-1");
            stream.body().close();
        }
    }

    /** A service of 1,200 persistent instances, orders-0000 to orders-1199, registered at once. */
    private void registerLargeService() {
        CompletableFuture.allOf(IntStream.range(0, 1_200).mapToObj(i -> sdk.registry().async().register(
                ServiceInstance.builder("orders", String.format("orders-%04d", i)).host("10.0.0.7").port(8080 + i)
                        .persistent().build()).toCompletableFuture()).toArray(CompletableFuture[]::new))
                .orTimeout(60, TimeUnit.SECONDS).join();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aServicesInstancesComeAPageAtATimeWithTheirTotal() throws Exception {
        registerLargeService();
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);

        JsonNode first = JSON.readTree(get("api/service?id=orders&offset=0&limit=500", TOKEN).body());
        JsonNode next = JSON.readTree(get("api/service?id=orders&offset=500&limit=500", TOKEN).body());

        assertThat(first.get("total").asInt()).isEqualTo(1_200);
        assertThat(first.get("instances")).hasSize(500);
        assertThat(first.get("instances").get(0).get("id").asText()).isEqualTo("orders-0000");
        assertThat(first.get("instances").get(499).get("id").asText()).isEqualTo("orders-0499");
        assertThat(next.get("instances").get(0).get("id").asText()).isEqualTo("orders-0500");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void theLastPageOfAServiceHoldsWhatIsLeft() throws Exception {
        registerLargeService();
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);

        JsonNode last = JSON.readTree(get("api/service?id=orders&offset=1000&limit=500", TOKEN).body());
        JsonNode past = JSON.readTree(get("api/service?id=orders&offset=1200&limit=500", TOKEN).body());

        assertThat(last.get("total").asInt()).isEqualTo(1_200);
        assertThat(last.get("offset").asInt()).isEqualTo(1_000);
        assertThat(last.get("instances")).hasSize(200);
        assertThat(last.get("instances").get(199).get("id").asText()).isEqualTo("orders-1199");
        assertThat(past.get("instances")).isEmpty();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void theServicesAndConfigsListsComeAPageAtATimeFilteredAsAsked() throws Exception {
        for (String id : new String[] {"billing/limits", "orders/flags", "payments/limits"}) {
            sdk.config().set(id, "v1", ConfigFormat.TEXT); // beside orders/limits
        }
        for (String service : new String[] {"billing", "orders", "payments"}) {
            sdk.registry().register(ServiceInstance.builder(service, service + "-1").host("10.0.0.7").port(8080)
                    .persistent().build());
        }
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);

        JsonNode configs = JSON.readTree(get("api/configs?offset=2&limit=2", TOKEN).body());
        JsonNode limits = JSON.readTree(get("api/configs?limit=10&filter=LIMITS", TOKEN).body());
        JsonNode services = JSON.readTree(get("api/services?offset=1&limit=1", TOKEN).body());

        assertThat(configs.get("total").asInt()).isEqualTo(4);
        assertThat(configs.get("items")).extracting(row -> row.get("id").asText())
                .containsExactly("orders/limits", "payments/limits");
        assertThat(limits.get("total").asInt()).isEqualTo(3);
        assertThat(services.get("total").asInt()).isEqualTo(3);
        assertThat(services.get("items")).extracting(row -> row.get("service").asText()).containsExactly("orders");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aBadPagingParameterIsRefusedWithA400NamingTheParameterItsValueAndTheRule() throws Exception {
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);
        Map<String, String> refusals = Map.of(
                "api/configs?limit=0", "limit must be a whole number from 1 to 500, but was '0'",
                "api/configs?limit=501", "limit must be a whole number from 1 to 500, but was '501'",
                "api/services?offset=-1", "offset must be a whole number from 0, but was '-1'",
                "api/configs?offset=ten", "offset must be a whole number from 0, but was 'ten'");

        for (Map.Entry<String, String> refusal : refusals.entrySet()) {
            HttpResponse<String> answer = get(refusal.getKey(), TOKEN);

            assertThat(answer.statusCode()).as(refusal.getKey()).isEqualTo(400);
            assertThat(JSON.readTree(answer.body()).get("message").asText()).as(refusal.getKey())
                    .isEqualTo(refusal.getValue());
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void anEncryptedConfigShowsAsItsKeysPlaceholderWithoutTheKeys(@TempDir Path dir) throws Exception {
        TestKeysets keyset = TestKeysets.fresh();
        try (LodestarClient writer = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace)
                .configKeys(ConfigKeys.keysetFile(keyset.writeTo(dir))).build())) {
            writer.config().set("orders/db", "password=s3cret-of-the-console-test", ConfigFormat.PROPERTIES);
        }
        console = new ConsoleProcess(redis.uri(), namespace, "--token", TOKEN);

        HttpResponse<String> read = get("api/config?id=orders/db", TOKEN);

        assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
        assertThat(read.body()).contains("<encrypted: key " + keyset.primaryKeyId() + ">")
                .doesNotContain("s3cret-of-the-console-test");
    }
}
