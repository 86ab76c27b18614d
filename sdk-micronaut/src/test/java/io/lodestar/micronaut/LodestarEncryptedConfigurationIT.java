package io.lodestar.micronaut;

import io.lodestar.core.ConfigKeys;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.TestKeysets;
import io.lodestar.test.TestRedis;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Micronaut's distributed configuration of an encrypted entry: decrypted with the keyset, a clear failure without. */
class LodestarEncryptedConfigurationIT {
    private final String namespace = Contexts.namespace();
    private final TestKeysets keyset = TestKeysets.fresh();

    @TempDir
    Path dir;

    private void setEncrypted(String id, String content) {
        try (LodestarClient writer = RedisLodestar.create(LodestarOptions.builder(TestRedis.standalone().uri())
                .namespace(namespace).configKeys(ConfigKeys.keysetFile(keyset.writeTo(dir))).build())) {
            writer.config().set(id, content, ConfigFormat.PROPERTIES);
        }
    }

    @Test
    void withTheKeysetFileAnEncryptedEntryBecomesPlainProperties() {
        setEncrypted("orders", "db.password=s3cret");

        try (ApplicationContext context = start(Map.of("lodestar.config-keyset-file",
                keyset.writeTo(dir).toString()))) {
            assertThat(context.getProperty("db.password", String.class)).contains("s3cret");
        }
    }

    @Test
    void withoutTheKeysTheStartFailsNamingTheKey() {
        setEncrypted("orders", "db.password=s3cret");

        assertThatThrownBy(() -> start(Map.of()))
                .hasStackTraceContaining("config 'orders' version 1")
                .hasStackTraceContaining("encrypted under key '" + keyset.primaryKeyId() + "'")
                .satisfies(e -> assertThat(e).hasStackTraceContaining("ConfigEncryptionException"));
    }

    private ApplicationContext start(Map<String, Object> extra) {
        Map<String, Object> properties = new HashMap<>(extra);
        properties.put("micronaut.config-client.enabled", "true");
        properties.put("lodestar.config.ids", List.of("orders"));
        return ApplicationContext.builder().properties(Contexts.properties(namespace, properties)).start();
    }
}
