package io.lodestar.spring;

import com.fasterxml.jackson.jr.ob.JSON;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The generated metadata is what IDEs complete: every property, the inherited core settings too, is described. */
class ConfigurationMetadataTest {

    @Test
    void everyLodestarPropertyHasADescription() throws IOException {
        Map<String, Map<String, Object>> properties = properties();

        assertThat(properties).containsKeys("lodestar.redis-uri", "lodestar.command-timeout",
                "lodestar.registration.port", "lodestar.discovery.enabled", "lodestar.enabled");
        assertThat(properties).allSatisfy((name, property) ->
                assertThat(property.get("description")).as(name).asString().isNotBlank());
    }

    @Test
    void inheritedSettingsCarryTheCoreDefaults() throws IOException {
        Map<String, Map<String, Object>> properties = properties();

        assertThat(properties.get("lodestar.command-timeout")).containsEntry("defaultValue", "5s");
        assertThat(properties.get("lodestar.namespace")).containsEntry("defaultValue", "default");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> properties() throws IOException {
        try (InputStream in = ConfigurationMetadataTest.class.getClassLoader()
                .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated metadata").isNotNull();
            List<Map<String, Object>> list = (List<Map<String, Object>>) JSON.std.mapFrom(in).get("properties");
            return list.stream().collect(Collectors.toMap(p -> (String) p.get("name"), p -> p));
        }
    }
}
