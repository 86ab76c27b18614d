package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.core.ConfigKeys;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestKeysets;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The CLI and encrypted configs: placeholders without the keys, plaintext with them, and {@code reencrypt}. */
class ConfigEncryptionCliIT {
    private final RedisServer redis = TestRedis.standalone();
    private final String namespace = "cli-" + UUID.randomUUID().toString().substring(0, 8);
    private final TestKeysets keyset = TestKeysets.fresh();
    private final List<LodestarClient> sdks = new ArrayList<>();

    @TempDir
    Path dir;

    private LodestarClient sdk(TestKeysets keys) {
        LodestarClient client = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace)
                .configKeys(keys == null ? null : ConfigKeys.keysetFile(keys.writeTo(dir))).build());
        sdks.add(client);
        return client;
    }

    @AfterEach
    void close() {
        sdks.forEach(LodestarClient::close);
    }

    private CliJar.Result lodestar(Map<String, String> env, String... args) {
        return lodestarWithInput(env, "", args);
    }

    private CliJar.Result lodestarWithInput(Map<String, String> env, String stdin, String... args) {
        List<String> all = new ArrayList<>(List.of("--uri", redis.uri(), "--namespace", namespace));
        all.addAll(List.of(args));
        return CliJar.run(env, stdin, all.toArray(String[]::new));
    }

    @Test
    void withoutTheKeysAnEncryptedConfigShowsAsAPlaceholder() {
        sdk(keyset).config().set("db", "password=s3cret", ConfigFormat.PROPERTIES);

        CliJar.Result result = lodestar(Map.of(), "config", "get", "db");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).isEqualTo("<encrypted: key " + keyset.primaryKeyId() + ">");
    }

    @Test
    void withTheKeysetFileTheCliPrintsThePlaintext() {
        sdk(keyset).config().set("db", "password=s3cret", ConfigFormat.PROPERTIES);

        CliJar.Result result = lodestar(Map.of(), "config", "get", "db", "--keyset-file",
                keyset.writeTo(dir).toString());

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).isEqualTo("password=s3cret");
    }

    @Test
    void withTheKeysetInTheEnvironmentTheCliWritesEncrypted() {
        CliJar.Result result = lodestarWithInput(Map.of("LODESTAR_CONFIG_KEYSET", keyset.json()), "password=s3cret",
                "config", "set", "db", "-", "-f", "text");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(sdk(keyset).config().get("db")).hasValueSatisfying(entry -> {
            assertThat(entry.content()).isEqualTo("password=s3cret");
            assertThat(entry.keyId()).contains(keyset.primaryKeyId());
        });
    }

    @Test
    void reencryptRewritesEveryEncryptedConfigUnderTheNewPrimaryKeyAndLeavesPlainOnes() {
        LodestarClient before = sdk(keyset);
        before.config().set("db", "password=s3cret", ConfigFormat.PROPERTIES);
        before.config().set("api", "token=abc", ConfigFormat.PROPERTIES);
        sdk(null).config().set("flags", "beta=true", ConfigFormat.PROPERTIES);
        TestKeysets rotated = keyset.rotated();
        String file = rotated.writeTo(dir).toString();

        CliJar.Result result = lodestar(Map.of(), "config", "reencrypt", "--keyset-file", file, "-o", "json");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        JsonNode rows = result.json();
        assertThat(rows).extracting(row -> row.get("id").asText() + ":" + row.get("result").asText())
                .containsExactly("api:re-encrypted", "db:re-encrypted", "flags:plain, left as it is");
        LodestarClient after = sdk(rotated);
        assertThat(after.config().get("db")).map(ConfigEntry::content).contains("password=s3cret");
        assertThat(after.config().get("db")).flatMap(ConfigEntry::keyId).contains(rotated.primaryKeyId());
        assertThat(after.config().get("api")).flatMap(ConfigEntry::keyId).contains(rotated.primaryKeyId());
        assertThat(after.config().get("flags")).flatMap(ConfigEntry::keyId).isEmpty();
    }

    @Test
    void reencryptTwiceChangesNothingTheSecondTime() {
        sdk(keyset).config().set("db", "password=s3cret", ConfigFormat.PROPERTIES);
        String file = keyset.rotated().writeTo(dir).toString();
        lodestar(Map.of(), "config", "reencrypt", "--keyset-file", file);

        CliJar.Result again = lodestar(Map.of(), "config", "reencrypt", "--keyset-file", file, "-o", "json");

        assertThat(again.exitCode()).as(again.toString()).isZero();
        assertThat(again.json().get(0).get("result").asText()).isEqualTo("already under this key");
        assertThat(again.json().get(0).get("to").asLong()).isEqualTo(2);
    }

    @Test
    void reencryptWithoutTheOldKeyReportsTheConfigItCannotReadAndFails() {
        sdk(keyset).config().set("db", "password=s3cret", ConfigFormat.PROPERTIES);

        CliJar.Result result = lodestar(Map.of(), "config", "reencrypt", "--keyset-file",
                TestKeysets.fresh().writeTo(dir).toString(), "-o", "json");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.SOFTWARE);
        assertThat(result.json().get(0).get("result").asText()).isEqualTo("skipped: key not in the keyset");
        assertThat(result.json().get(0).get("key").asText()).isEqualTo(keyset.primaryKeyId());
    }

    @Test
    void reencryptWithoutKeysIsAUsageError() {
        CliJar.Result result = lodestar(Map.of(), "config", "reencrypt");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.err()).contains("reencrypt needs the config keys");
    }
}
