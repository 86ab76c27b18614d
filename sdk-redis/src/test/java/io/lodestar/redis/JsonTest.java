package io.lodestar.redis;

import com.fasterxml.jackson.jr.ob.JSON;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JSON sent to the write scripts, written by hand: the same text Jackson-jr wrote from a map.
 */
class JsonTest {
    private static ServiceInstance.Builder orders() {
        return ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8443).secure(true).weight(250)
                .status(InstanceStatus.DOWN).ttl(Duration.ofSeconds(15)).metadata("zone", "eu-1")
                .metadata("version", "2");
    }

    @Test
    void writesAnInstanceAsJacksonWroteItsMap() throws Exception {
        ServiceInstance instance = orders().build();

        assertThat(Json.instance(instance)).isEqualTo(JSON.std.asString(jacksonFields(instance)));
    }

    @Test
    void writesAnyTextAsJacksonDoes() throws Exception {
        Random random = new Random(17);
        for (int round = 0; round < 20_000; round++) {
            StringBuilder text = new StringBuilder();
            int length = random.nextInt(12);
            for (int i = 0; i < length; i++) {
                // mostly the characters that need escaping, some ASCII, some beyond
                int pick = random.nextInt(4);
                text.append(pick == 0 ? (char) random.nextInt(0x21) : pick == 1 ? "\"\\/'".charAt(random.nextInt(4))
                        : pick == 2 ? (char) (0x20 + random.nextInt(0x60)) : (char) (0x80 + random.nextInt(0x800)));
            }
            Map<String, String> map = Map.of("k" + round, text.toString());

            assertThat(Json.object(map)).as("%s", map).isEqualTo(JSON.std.asString(map));
            assertThat(Json.array(List.of(text.toString()))).isEqualTo(JSON.std.asString(List.of(text.toString())));
        }
    }

    @Test
    void writesMetadataChangesForTheUpdateScript() {
        assertThat(Json.object(Map.of("zone", "eu-1"))).isEqualTo("{\"zone\":\"eu-1\"}");
        assertThat(Json.array(new TreeSet<>(List.of("b", "a")))).isEqualTo("[\"a\",\"b\"]");
        assertThat(Json.array(List.of())).isEqualTo("[]");
    }

    /** The map Json.instance(instance) was written from before. */
    private static Map<String, Object> jacksonFields(ServiceInstance instance) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("host", instance.host());
        fields.put("port", instance.port());
        fields.put("secure", instance.secure());
        fields.put("weight", instance.weight());
        fields.put("status", instance.status().name());
        fields.put("ttl", instance.ttl().toMillis());
        fields.put("metadata", instance.metadata());
        return fields;
    }
}
