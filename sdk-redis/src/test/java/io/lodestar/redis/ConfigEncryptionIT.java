package io.lodestar.redis;

import io.lettuce.core.Range;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.sync.RedisCommands;
import io.lodestar.core.ConfigEncryptionException;
import io.lodestar.core.ConfigKeys;
import io.lodestar.core.ConflictException;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.ConfigRolledBack;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.GrayRelease;
import io.lodestar.core.model.GrayRule;
import io.lodestar.core.model.InstanceIdentity;
import io.lodestar.test.TestKeysets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Encrypted config entries end to end, each test on a private Redis so "every key" and "the AOF file" are this
 * test's alone: clients with the keys read plaintext, and no plaintext byte reaches Redis, its AOF, the snapshot
 * directory, the logs or an exception message.
 */
class ConfigEncryptionIT extends PrivateRedisTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    private final String secret = "db-password-" + UUID.randomUUID();
    private final TestKeysets keyset = TestKeysets.fresh();

    private LodestarClient withKeys(TestKeysets keys) {
        Path file = keys.writeTo(dir);
        return clients.connect(options -> options.configKeys(ConfigKeys.keysetFile(file)));
    }

    @Test
    void aClientWithTheKeyReadsThePlaintextItWrote() {
        LodestarClient writer = withKeys(keyset);
        LodestarClient reader = withKeys(keyset);

        ConfigEntry written = writer.config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);

        assertThat(written.content()).isEqualTo("password=" + secret);
        assertThat(reader.config().get("db")).contains(written);
        assertThat(reader.directConfig().get("db")).contains(written);
        assertThat(reader.config().history("db")).containsExactly(written);
        assertThat(reader.config().getVersion("db", 1)).contains(written);
    }

    @Test
    void noKeyOfRedisHoldsAPlaintextByteOfAnEncryptedEntry() {
        LodestarClient client = withKeys(keyset);
        client.config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);
        client.config().set("db", "password=" + secret + "-2", ConfigFormat.PROPERTIES);
        client.config().rollback("db", 1);

        String everything = String.join("\n", everyValue(redis()));

        assertThat(everything).as("the entry is in Redis").contains("lodestar:encrypted:1:" + keyset.primaryKeyId());
        assertThat(everything).doesNotContain(secret);
    }

    @Test
    void theAppendOnlyFileHoldsNoPlaintextByteOfAnEncryptedEntry() throws IOException {
        RedisCommands<String, String> raw = redis();
        raw.configSet(Map.of("aof-use-rdb-preamble", "no", "appendfsync", "always", "appendonly", "yes"));
        await().atMost(WAIT).until(() -> raw.info("persistence").contains("aof_rewrite_in_progress:0")
                && raw.info("persistence").contains("aof_enabled:1"));
        Path aof = Path.of(raw.configGet("dir").get("dir"), raw.configGet("appenddirname").get("appenddirname"));
        LodestarClient client = withKeys(keyset);
        String plain = "plain-" + UUID.randomUUID();

        client.config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);
        clients.connect().config().set("control", plain, ConfigFormat.TEXT);

        String written = read(aof);
        assertThat(written).as("the AOF has the writes (a plain entry is readable in it)").contains(plain)
                .contains("lodestar:encrypted:1:");
        assertThat(written).doesNotContain(secret);
    }

    @Test
    void theSnapshotDirectoryHoldsOnlyCiphertext() throws IOException {
        Path snapshots = Files.createDirectory(dir.resolve("snapshots"));
        LodestarClient writer = withKeys(keyset);
        LodestarClient reader = clients.connect(options -> options.configSnapshotDirectory(snapshots)
                .configKeys(ConfigKeys.keysetFile(keyset.writeTo(dir))));
        writer.config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);

        assertThat(reader.config().get("db")).map(ConfigEntry::content).contains("password=" + secret);

        await().atMost(WAIT).untilAsserted(() -> assertThat(read(snapshots)).contains("lodestar:encrypted:1:"));
        assertThat(read(snapshots)).doesNotContain(secret);
    }

    @Test
    void aListenerWithTheKeyGetsEveryVersionInPlaintext() {
        LodestarClient writer = withKeys(keyset);
        LodestarClient reader = withKeys(keyset);
        List<ConfigEvent> events = new CopyOnWriteArrayList<>();
        List<ConfigEvent> all = new CopyOnWriteArrayList<>();
        reader.config().subscribe("db", events::add);
        reader.config().subscribeAll(all::add);

        writer.config().set("db", "v1-" + secret, ConfigFormat.TEXT);
        writer.config().set("db", "v2-" + secret, ConfigFormat.TEXT);
        writer.config().rollback("db", 1);

        await().atMost(WAIT).untilAsserted(() -> assertThat(events).hasSize(3));
        assertThat(events).map(event -> event instanceof ConfigChanged changed ? changed.entry().content()
                : ((ConfigRolledBack) event).entry().content())
                .containsExactly("v1-" + secret, "v2-" + secret, "v1-" + secret);
        await().atMost(WAIT).untilAsserted(() -> assertThat(all).isNotEmpty()
                .allMatch(event -> !(event instanceof ConfigChanged changed)
                        || changed.entry().content().contains(secret)));
    }

    @Test
    void aGrayReleaseOfAnEncryptedConfigIsEncryptedToAndItsInstancesReadThePlaintext() {
        // given an encrypted config, and a client with the key in the gray set (zone eu-1)
        LodestarClient writer = withKeys(keyset);
        writer.config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);
        Path file = keyset.writeTo(dir);
        LodestarClient grayInstance = clients.connect(options -> options.configKeys(ConfigKeys.keysetFile(file))
                .identity(new InstanceIdentity("db-1", Map.of("zone", "eu-1"))));

        // when a gray release with new content starts for that zone
        GrayRelease started = writer.config().startGray("db", "password=" + secret + "-gray", ConfigFormat.PROPERTIES,
                GrayRule.metadata("zone", "eu-1"));

        // then callers and the gray instance get the plaintext, while Redis holds none of it
        assertThat(started.content()).isEqualTo("password=" + secret + "-gray");
        assertThat(writer.config().gray("db")).map(GrayRelease::content).contains("password=" + secret + "-gray");
        await().atMost(WAIT).untilAsserted(() -> assertThat(grayInstance.config().get("db"))
                .map(ConfigEntry::content).contains("password=" + secret + "-gray"));
        assertThat(String.join("\n", everyValue(redis()))).doesNotContain(secret);
    }

    @Test
    void aClientWithoutKeysGetsAClearExceptionNamingTheKeyNeverCiphertext() {
        withKeys(keyset).config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);
        LodestarClient keyless = clients.connect();

        assertThatThrownBy(() -> keyless.config().get("db"))
                .isInstanceOfSatisfying(ConfigEncryptionException.class, e -> {
                    assertThat(e.keyId()).isEqualTo(keyset.primaryKeyId());
                    assertThat(e.configId()).isEqualTo("db");
                    assertThat(e.reason()).isEqualTo(ConfigEncryptionException.Reason.KEY_NOT_HELD);
                })
                .hasMessageContaining("config 'db' version 1")
                .hasMessageContaining("encrypted under key '" + keyset.primaryKeyId() + "'")
                .hasMessageContaining("no config keys are configured");
        assertThatThrownBy(() -> keyless.config().history("db")).isInstanceOf(ConfigEncryptionException.class);
        assertThatThrownBy(() -> keyless.config().async().get("db").toCompletableFuture().join())
                .hasCauseInstanceOf(ConfigEncryptionException.class);
        assertThatThrownBy(() -> keyless.directConfig().get("db")).isInstanceOf(ConfigEncryptionException.class);
    }

    @Test
    void aListenerWithoutTheKeyIsNeverHandedCiphertextAndTheSkipIsLogged() {
        LodestarClient writer = withKeys(keyset);
        LodestarClient keyless = clients.connect();
        List<ConfigEvent> events = new CopyOnWriteArrayList<>();
        keyless.config().subscribe("db", events::add);

        try (LogCapture log = LogCapture.start()) {
            writer.config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);
            writer.config().set("plain", "a=1", ConfigFormat.PROPERTIES);

            await().atMost(WAIT).untilAsserted(() -> assertThat(log.lines("WARN", "config 'db' version 1",
                    "key '" + keyset.primaryKeyId() + "'")).hasSize(1));
        }
        assertThat(events).isEmpty();
    }

    @Test
    void anOperatorToolWithPlaceholdersSeesTheKeyIdAndCannotWriteThePlaceholderBack() {
        withKeys(keyset).config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);
        LodestarClient tool = clients.connect(options -> options.encryptedConfigPlaceholders(true));
        String placeholder = "<encrypted: key " + keyset.primaryKeyId() + ">";

        assertThat(tool.config().get("db")).hasValueSatisfying(entry -> {
            assertThat(entry.content()).isEqualTo(placeholder);
            assertThat(entry.keyId()).contains(keyset.primaryKeyId());
        });
        assertThatThrownBy(() -> tool.config().set("db", placeholder, ConfigFormat.PROPERTIES))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("content must be not the placeholder of an encrypted entry");
    }

    @Test
    void aClientWithAnotherKeysetIsToldItLacksTheKey() {
        withKeys(keyset).config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);
        TestKeysets other = TestKeysets.fresh();

        assertThatThrownBy(() -> withKeys(other).config().get("db"))
                .isInstanceOf(ConfigEncryptionException.class)
                .hasMessageContaining("encrypted under key '" + keyset.primaryKeyId() + "'")
                .hasMessageContaining("its keys: primary '" + other.primaryKeyId() + "'");
    }

    @Test
    void ciphertextChangedInRedisFailsTheIntegrityCheckNeverReadsAsAWrongValue() {
        withKeys(keyset).config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);
        String current = keys().config("db").current();
        String stored = redis().hget(current, "content");
        int flip = stored.length() - 5;
        String tampered = stored.substring(0, flip) + (stored.charAt(flip) == 'A' ? 'B' : 'A')
                + stored.substring(flip + 1);
        redis().hset(current, "content", tampered);

        assertThatThrownBy(() -> withKeys(keyset).config().get("db"))
                .isInstanceOfSatisfying(ConfigEncryptionException.class, e ->
                        assertThat(e.reason()).isEqualTo(ConfigEncryptionException.Reason.INTEGRITY))
                .hasMessageContaining("Integrity check failed for config 'db' version 1")
                .hasMessageContaining("key '" + keyset.primaryKeyId() + "'");
    }

    @Test
    void ciphertextReplacedByPlainTextInRedisFailsTheIntegrityCheck() {
        withKeys(keyset).config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);
        redis().hset(keys().config("db").current(), "content", "password=chosen-by-an-attacker");

        assertThatThrownBy(() -> withKeys(keyset).config().get("db"))
                .isInstanceOfSatisfying(ConfigEncryptionException.class, e ->
                        assertThat(e.reason()).isEqualTo(ConfigEncryptionException.Reason.INTEGRITY))
                .hasMessageContaining("its content hash says encrypted, but its content in Redis is not");
    }

    @Test
    void ciphertextMovedToAnotherConfigFailsTheIntegrityCheck() {
        LodestarClient client = withKeys(keyset);
        client.config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);
        client.config().set("other", "harmless", ConfigFormat.PROPERTIES);
        redis().hset(keys().config("other").current(), "content",
                redis().hget(keys().config("db").current(), "content"));

        assertThatThrownBy(() -> withKeys(keyset).config().get("other"))
                .isInstanceOf(ConfigEncryptionException.class).hasMessageContaining("Integrity check failed");
    }

    @Test
    void anIdenticalSetIsANoOpAndItsHashIsKeyedNotTheSha1OfThePlaintext() {
        LodestarClient client = withKeys(keyset);
        ConfigEntry first = client.config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);

        ConfigEntry again = withKeys(keyset).config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);

        assertThat(again.version()).isEqualTo(first.version());
        assertThat(first.contentHash()).startsWith("hmac:" + keyset.primaryKeyId() + ":")
                .doesNotContain(Digests.sha1Hex("password=" + secret));
        assertThat(String.join("\n", everyValue(redis())))
                .doesNotContain(Digests.sha1Hex("password=" + secret));
    }

    @Test
    void compareAndSetAndRollbackWorkOnCiphertext() {
        LodestarClient client = withKeys(keyset);
        ConfigEntry first = client.config().set("db", "v1-" + secret, ConfigFormat.TEXT);
        ConfigEntry second = client.config().compareAndSet("db", "v2-" + secret, ConfigFormat.TEXT, first.version());

        assertThatThrownBy(() -> client.config().compareAndSet("db", "v3-" + secret, ConfigFormat.TEXT, 1))
                .isInstanceOf(ConflictException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(secret));
        ConfigEntry rolledBack = client.config().rollback("db", 1);

        assertThat(second.content()).isEqualTo("v2-" + secret);
        assertThat(rolledBack.version()).isEqualTo(3);
        assertThat(rolledBack.content()).isEqualTo("v1-" + secret);
        assertThat(withKeys(keyset).config().get("db")).map(ConfigEntry::content).contains("v1-" + secret);
    }

    @Test
    void afterARotationNewVersionsUseTheNewKeyAndOldOnesStayReadable() {
        withKeys(keyset).config().set("db", "old-" + secret, ConfigFormat.TEXT);
        TestKeysets rotated = keyset.rotated();
        LodestarClient client = withKeys(rotated);

        ConfigEntry newer = client.config().set("db", "new-" + secret, ConfigFormat.TEXT);

        assertThat(newer.contentHash()).startsWith("hmac:" + rotated.primaryKeyId() + ":");
        assertThat(client.config().history("db")).map(ConfigEntry::content)
                .containsExactly("new-" + secret, "old-" + secret);
        assertThatThrownBy(() -> withKeys(keyset).config().get("db"))
                .isInstanceOf(ConfigEncryptionException.class)
                .hasMessageContaining("encrypted under key '" + rotated.primaryKeyId() + "'");
        assertThat(withKeys(keyset).config().getVersion("db", 1)).map(ConfigEntry::content).contains("old-" + secret);
    }

    @Test
    void reSettingTheSameContentAfterARotationReEncryptsItUnderTheNewKey() {
        LodestarClient before = withKeys(keyset);
        ConfigEntry first = before.config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);
        TestKeysets rotated = keyset.rotated();

        ConfigEntry again = withKeys(rotated).config().compareAndSet("db", "password=" + secret,
                ConfigFormat.PROPERTIES, first.version());

        assertThat(again.version()).isEqualTo(2);
        assertThat(redis().hget(keys().config("db").current(), "content"))
                .startsWith("lodestar:encrypted:1:" + rotated.primaryKeyId() + ":");
    }

    @Test
    void theLogsAtDebugHoldNoPlaintext() {
        // given clients used once, so every logger on the path exists when DEBUG is turned on
        withKeys(keyset).config().set("warm-up", "a=1", ConfigFormat.PROPERTIES);
        clients.connect().config().subscribe("warm-up", event -> { });

        List<String> lines;
        try (LogCapture log = LogCapture.start(); LogCapture.Debug debug = LogCapture.debug()) {
            // new clients: Lettuce decides per connection whether it logs at DEBUG
            LodestarClient writer = withKeys(keyset);
            clients.connect().config().subscribe("db", event -> { });
            writer.config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);
            writer.config().set("db", "password=" + secret + "2", ConfigFormat.PROPERTIES);
            writer.config().rollback("db", 1);
            await().atMost(WAIT).until(() -> log.lines("WARN", "config 'db' version 3").size() == 1);
            lines = log.linesSince(0);
        }

        assertThat(lines).as("debug logging was on").anyMatch(line -> line.contains(" DEBUG "));
        assertThat(lines).noneMatch(line -> line.contains(secret));
    }

    @Test
    void aPlainContentThatLooksEncryptedIsRefusedByAClientWithoutKeys() {
        LodestarClient keyless = clients.connect();

        assertThatThrownBy(() -> keyless.config().set("db", "lodestar:encrypted:1:7:AAAA", ConfigFormat.TEXT))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("content must be without the prefix 'lodestar:encrypted:'");
    }

    @Test
    void aKeysetFileThatCannotBeReadFailsTheClientsStartNamingIt() throws IOException {
        Path missing = dir.resolve("missing.json");
        Path garbage = Files.writeString(dir.resolve("garbage.json"), "{\"not\": \"a keyset " + secret + "\"}");

        assertThatThrownBy(() -> clients.connect(options -> options.configKeys(ConfigKeys.keysetFile(missing))))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("configKeys must be a readable Tink JSON keyset file")
                .hasMessageContaining(missing.toString());
        assertThatThrownBy(() -> clients.connect(options -> options.configKeys(ConfigKeys.keysetFile(garbage))))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("configKeys must be a Tink JSON keyset")
                .satisfies(e -> assertThat(stackTrace(e)).doesNotContain(secret));
    }

    @Test
    void anUnsetKeysetEnvironmentVariableFailsTheClientsStartNamingIt() {
        String name = "LODESTAR_TEST_UNSET_" + UUID.randomUUID().toString().replace("-", "_");

        assertThatThrownBy(() -> clients.connect(options ->
                options.configKeys(ConfigKeys.environmentVariable(name))))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("configKeys must be set to a Tink JSON keyset (it is unset), but was"
                        + " environment variable " + name);
    }

    @Test
    void aKmsStyleProviderIsASmallAdapterAndOnlyEverSeesDataKeys() {
        ExampleKmsKeyProvider.FakeKms kms = new ExampleKmsKeyProvider.FakeKms();
        LodestarClient client = clients.connect(options ->
                options.configKeys(ConfigKeys.provider(new ExampleKmsKeyProvider(kms, "orders-config"))));

        ConfigEntry written = client.config().set("db", "password=" + secret, ConfigFormat.PROPERTIES);

        assertThat(clients.connect(options -> options.configKeys(ConfigKeys.provider(
                new ExampleKmsKeyProvider(kms, "orders-config")))).config().get("db")).contains(written);
        assertThat(kms.seen()).isNotEmpty().noneMatch(bytes -> new String(bytes, StandardCharsets.ISO_8859_1)
                .contains(secret));
        assertThat(redis().hget(keys().config("db").current(), "content"))
                .startsWith("lodestar:encrypted:1:orders-config:");
    }

    // ---------------------------------------------------------------- helpers

    /** Every value of every key of this test's Redis, by type. */
    private static List<String> everyValue(RedisCommands<String, String> redis) {
        List<String> values = new ArrayList<>();
        ScanIterator.scan(redis, ScanArgs.Builder.limit(1000)).forEachRemaining(key -> {
            values.add(key);
            switch (redis.type(key)) {
                case "string" -> values.add(redis.get(key));
                case "hash" -> redis.hgetall(key).forEach((field, value) -> values.add(field + "=" + value));
                case "zset" -> values.addAll(redis.zrange(key, 0, -1));
                case "set" -> values.addAll(redis.smembers(key));
                case "list" -> values.addAll(redis.lrange(key, 0, -1));
                case "stream" -> redis.xrange(key, Range.create("-", "+"))
                        .forEach(message -> values.add(message.getBody().toString()));
                default -> throw new AssertionError("key " + key + " of unexpected type " + redis.type(key));
            }
        });
        return values;
    }

    /** Every file under {@code root}, read as Latin-1 (every byte a char, so binary files are searched too). */
    private static String read(Path root) throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                all.append(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1)).append('\n');
            }
        }
        return all.toString();
    }

    private static String stackTrace(Throwable e) {
        StringWriter out = new StringWriter();
        e.printStackTrace(new PrintWriter(out));
        return out.toString();
    }
}
