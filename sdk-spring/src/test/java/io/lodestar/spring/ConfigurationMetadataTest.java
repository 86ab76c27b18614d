package io.lodestar.spring;

import com.fasterxml.jackson.jr.ob.JSON;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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

    @Test
    void inheritedLoadBalancerSettingsAreListedWithTheirDefaults() throws IOException {
        Map<String, Map<String, Object>> properties = properties();

        assertThat(properties).containsKeys("lodestar.loadbalancer.prefer-zone", "lodestar.loadbalancer.prefer-region",
                "lodestar.loadbalancer.slow-start",
                "lodestar.loadbalancer.metadata", "lodestar.loadbalancer.canary.percent",
                "lodestar.loadbalancer.canary.hint-header", "lodestar.loadbalancer.services");
        assertThat(properties.get("lodestar.loadbalancer.strategy")).containsEntry("defaultValue", "weighted-random");
        assertThat(properties.get("lodestar.loadbalancer.canary.hint-value")).containsEntry("defaultValue", "true");
    }

    /** The starter's own entries: test classes with {@code @ConfigurationProperties} generate a file of their own. */
    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> properties() throws IOException {
        Map<String, Map<String, Object>> properties = new TreeMap<>();
        for (URL url : Collections.list(ConfigurationMetadataTest.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                ((List<Map<String, Object>>) JSON.std.mapFrom(in).get("properties")).stream()
                        .filter(p -> ((String) p.get("name")).startsWith(LodestarProperties.PREFIX + "."))
                        .forEach(p -> properties.put((String) p.get("name"), p));
            }
        }
        assertThat(properties).as("generated metadata").isNotEmpty();
        return properties;
    }
}
