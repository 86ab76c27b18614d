package io.lodestar.redis;

import com.fasterxml.jackson.jr.ob.JSON;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The stored JSON of an instance, written and read by hand: the same text Jackson-jr wrote from a map, and the same
 * instance the map-based reading built, for what Redis' cjson stores and for what another program may have put there.
 */
class JsonTest {
    private static final String STORED = "{\"host\":\"10.0.0.7\",\"port\":8443,\"secure\":true,\"weight\":250,"
            + "\"status\":\"DOWN\",\"ttl\":15000,\"metadata\":{\"zone\":\"eu-1\",\"version\":\"2\"},"
            + "\"registeredAt\":1764000000123}";

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
    void readsBackWhatItWrote() {
        ServiceInstance instance = orders().build();
        String stored = Json.instance(instance).replaceFirst("}$", ",\"registeredAt\":1764000000123}");

        assertThat(Json.instance("orders", "orders-1", stored))
                .isEqualTo(instance.toBuilder().registeredAt(Instant.ofEpochMilli(1764000000123L)).build());
    }

    @Test
    void readsWhatTheMapBasedReadingRead() {
        Random random = new Random(5);
        for (int round = 0; round < 2_000; round++) {
            String json = Json.write(randomInstanceFields(random, round));

            assertThat(Json.instance("orders", "orders-" + round, json)).as(json)
                    .isEqualTo(mapBasedInstance("orders", "orders-" + round, Json.read(json)));
        }
    }

    @Test
    void readsCjsonsFormInAnyOrderWithEscapedSlashesAndNewerFields() {
        String json = " { \"metadata\" : { \"path\" : \"\\/api\\/v1\", \"note\" : \"caf\\u00e9 \\ud83d\\ude00\" } ,"
                + "\"future\":{\"nested\":[1,2.5e3,{\"a\":null},\"x\\\"y\"],\"flag\":false},"
                + "\"ttl\":30000,\"registeredAt\":1764000000123,\"status\":\"UP\",\"weight\":100,"
                + "\"secure\":false,\"port\":80,\"host\":\"orders.internal\"}\n";

        ServiceInstance instance = Json.instance("orders", "orders-1", json);

        assertThat(instance.metadata()).containsExactly(Map.entry("note", "caf\u00e9 \ud83d\ude00"),
                Map.entry("path", "/api/v1"));
        assertThat(instance.host()).isEqualTo("orders.internal");
        assertThat(instance.port()).isEqualTo(80);
        assertThat(instance.ttl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(instance.registeredAt()).isEqualTo(Instant.ofEpochMilli(1764000000123L));
    }

    @Test
    void readsAnEmptyTableWrittenAsAnArrayOrNullAsNoMetadata() {
        for (String metadata : List.of("[]", "null", "{}")) {
            String json = STORED.replace("{\"zone\":\"eu-1\",\"version\":\"2\"}", metadata);

            assertThat(Json.instance("orders", "orders-1", json).metadata()).as(metadata).isEmpty();
        }
        assertThat(Json.instance("orders", "orders-1", STORED.replaceFirst(",\"metadata\":\\{[^}]*}", ""))
                .metadata()).isEmpty();
    }

    @Test
    void readsANumberWrittenWithAFractionOrAnExponent() {
        String json = STORED.replace("\"ttl\":15000", "\"ttl\":1.5e4").replace("\"port\":8443", "\"port\":8443.0");

        ServiceInstance instance = Json.instance("orders", "orders-1", json);

        assertThat(instance.ttl()).isEqualTo(Duration.ofSeconds(15));
        assertThat(instance.port()).isEqualTo(8443);
    }

    @Test
    void readsTheSameTextAgainAsTheSameStrings() {
        ServiceInstance first = Json.instance("orders", "orders-1", STORED);
        ServiceInstance again = Json.instance("orders", "orders-1", new String(STORED.toCharArray()));

        assertThat(again).isEqualTo(first);
        assertThat(again.host()).isSameAs(first.host());
        assertThat(again.metadata("zone")).isSameAs(first.metadata("zone"));
        assertThat(again.metadata().keySet().iterator().next()).isSameAs(first.metadata().keySet().iterator().next());
    }

    @Test
    void readsAStatusOfANewerClientAsUnknown() {
        assertThat(Json.instance("orders", "orders-1", STORED.replace("\"DOWN\"", "\"DRAINING\"")).status())
                .isEqualTo(InstanceStatus.UNKNOWN);
    }

    static List<String> malformed() {
        return List.of("", "{", "[]", "null", STORED.substring(0, STORED.length() - 1), STORED.replaceFirst("}$", ",}"),
                "{host:\"a\"}", STORED + " trailing", STORED.replace("8443", "\"8443\""),
                STORED.replace("\"DOWN\"", "7"), STORED.replace("\"eu-1\"", "1"), STORED.replace("true", "tru"),
                STORED.replace("eu-1", "e\\qu"), STORED.replace("eu-1\"", "e\\u12\""),
                STORED.replace("eu-1", "e\u0001u"), STORED.replace("\"port\":8443", "\"port\":-"),
                STORED.replace("\"version\":\"2\"", "\"version\":\"2\" \"x\":\"y\""));
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void refusesMalformedJson(String json) {
        assertThatThrownBy(() -> Json.instance("orders", "orders-1", json)).as(json)
                .isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"host", "port", "weight", "status", "ttl"})
    void refusesAnInstanceWithoutARequiredField(String field) {
        String json = STORED.replaceFirst("\"" + field + "\":(\"[^\"]*\"|[0-9]+),?", "");

        // a missing host is a null host, which the instance's own rules refuse
        assertThatThrownBy(() -> Json.instance("orders", "orders-1", json)).as(json)
                .isInstanceOf(RuntimeException.class).hasMessageContaining(field);
    }

    @Test
    void validatesTheInstanceAsAUsersWouldBe() {
        String json = STORED.replace("\"10.0.0.7\"", "\"bad host\"").replace("\"zone\"", "\"-zone\"");

        assertThatThrownBy(() -> Json.instance("orders", "orders-1", json))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("metadata key");
        assertThatThrownBy(() -> Json.instance("orders", "orders-1", STORED.replace("8443", "70000")))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("port must be between 1 and 65535");
        assertThatThrownBy(() -> Json.instance("orders", "orders-1", STORED.replace("8443", "99999999999")))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("port must be between 1 and 65535");
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

    /**
     * The reference the hand-written reader is checked against: the instance as the map-based reading built it from
     * Jackson-jr's map (the reading Lodestar used before {@link InstanceReader}), builder and validation included; a
     * status a newer client wrote reads as UNKNOWN.
     */
    @SuppressWarnings("unchecked")
    static ServiceInstance mapBasedInstance(String serviceId, String instanceId, Map<String, Object> fields) {
        Object metadata = fields.get("metadata");
        Number registeredAt = (Number) fields.get("registeredAt");
        Object stored = fields.get("status");
        InstanceStatus status = InstanceStatus.UNKNOWN;
        for (InstanceStatus known : InstanceStatus.values()) {
            if (known.name().equals(stored) && known != InstanceStatus.UNKNOWN) {
                status = known;
            }
        }
        if (!(stored instanceof String)) {
            throw new IllegalArgumentException("status must be a string, but was " + stored);
        }
        return ServiceInstance.builder(serviceId, instanceId)
                .host((String) fields.get("host"))
                .port(((Number) fields.get("port")).intValue())
                .secure(Boolean.TRUE.equals(fields.get("secure")))
                .weight(((Number) fields.get("weight")).intValue())
                .status(status)
                .ttl(Duration.ofMillis(((Number) fields.get("ttl")).longValue()))
                .metadata(metadata instanceof Map<?, ?> map ? (Map<String, String>) map : Map.of())
                .registeredAt(registeredAt == null ? null : Instant.ofEpochMilli(registeredAt.longValue()))
                .build();
    }

    /** The stored fields of a random instance: every status, TTL or none, metadata with characters JSON escapes. */
    static Map<String, Object> randomInstanceFields(Random random, int round) {
        String[] statuses = {"UP", "DOWN", "OUT_OF_SERVICE", "STARTING", "UNKNOWN", "DRAINING"};
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("host", random.nextBoolean() ? "10.1." + random.nextInt(256) + ".9" : "svc-" + round + ".local");
        fields.put("port", 1 + random.nextInt(65535));
        fields.put("secure", random.nextBoolean());
        fields.put("weight", random.nextInt(10_001));
        fields.put("status", statuses[random.nextInt(statuses.length)]);
        fields.put("ttl", random.nextBoolean() ? 0 : 1000 + random.nextInt(100_000));
        Map<String, String> metadata = new LinkedHashMap<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            metadata.put("k" + random.nextInt(10) + "/x", "v\"\\/\u00e9\n" + random.nextInt());
        }
        fields.put("metadata", metadata);
        if (random.nextBoolean()) {
            fields.put("registeredAt", 1_700_000_000_000L + random.nextInt(1_000_000));
        }
        return fields;
    }
}
