package io.lodestar.spring;

import io.lodestar.core.ConfigEncryptionException;
import io.lodestar.core.ConfigKeys;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.TestKeysets;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import java.nio.file.Path;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code spring.config.import=lodestar:…} of an encrypted entry: decrypted with the keyset, a clear failure without. */
class LodestarEncryptedConfigDataIT {
    private final String namespace = "spring-enc-" + UUID.randomUUID().toString().substring(0, 8);
    private final TestKeysets keyset = TestKeysets.fresh();

    @TempDir
    Path dir;

    private final LodestarClient admin = RedisLodestar.create(LodestarOptions.builder(TestRedis.standalone().uri())
            .namespace(namespace).build());

    @AfterEach
    void closeAdmin() {
        admin.close();
    }

    private void setEncrypted(String id, String content) {
        try (LodestarClient writer = RedisLodestar.create(LodestarOptions.builder(TestRedis.standalone().uri())
                .namespace(namespace).configKeys(ConfigKeys.keysetFile(keyset.writeTo(dir))).build())) {
            writer.config().set(id, content, ConfigFormat.PROPERTIES);
        }
    }

    @Test
    void withTheKeysetFileAnEncryptedEntryBecomesPlainProperties() {
        setEncrypted("orders/db", "db.password=s3cret");

        try (ConfigurableApplicationContext app = builder("lodestar:orders/db")
                .properties("lodestar.config-keyset-file=" + keyset.writeTo(dir)).run()) {
            assertThat(app.getEnvironment().getProperty("db.password")).isEqualTo("s3cret");
        }
    }

    @Test
    void withoutTheKeysEvenAnOptionalImportOfAnEncryptedEntryFailsTheStartNamingTheKey() {
        setEncrypted("orders/db", "db.password=s3cret");

        assertThatThrownBy(() -> builder("optional:lodestar:orders/db").run())
                .isInstanceOf(ConfigEncryptionException.class)
                .hasMessageContaining("config 'orders/db' version 1")
                .hasMessageContaining("encrypted under key '" + keyset.primaryKeyId() + "'")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
    }

    @Test
    void aKeysetFileThatCannotBeReadFailsTheStartNamingIt() {
        Path missing = dir.resolve("missing.json");

        assertThatThrownBy(() -> builder("lodestar:orders/db").properties("lodestar.config-keyset-file=" + missing)
                .run())
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("configKeys must be a readable Tink JSON keyset file")
                .hasMessageContaining(missing.toString());
    }

    private SpringApplicationBuilder builder(String imports) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).properties(
                "spring.config.import=" + imports, "lodestar.redis-uri=" + TestRedis.standalone().uri(),
                "lodestar.namespace=" + namespace, "lodestar.registration.enabled=false");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }
}
