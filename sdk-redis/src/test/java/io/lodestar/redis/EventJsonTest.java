package io.lodestar.redis;

import com.fasterxml.jackson.jr.ob.JSON;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.Namespace;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A service event read by hand ({@link InstanceReader#event}, what {@link ServiceSource#read} does on Lettuce's I/O
 * thread): the same top-level fields Jackson-jr's map had, its instance kept as text, and the same instance once
 * read, for what the scripts publish and for what another program may publish on the channel.
 */
class EventJsonTest {
    private static final String EVENT = "{\"type\":\"registered\",\"rev\":42,\"id\":\"orders-1\",\"instance\":"
            + "{\"host\":\"10.0.0.7\",\"port\":8443,\"secure\":true,\"weight\":250,\"status\":\"DOWN\",\"ttl\":15000,"
            + "\"metadata\":{\"zone\":\"eu-1\",\"version\":\"2\"},\"registeredAt\":1764000000123},"
            + "\"digest\":\"9f2c0d9f2c0d9f2c0d9f2c0d9f2c0d9f2c0d9f2c\",\"inc\":\"5f0c1e9a2b7d4c11\"}";

    @Test
    void readsWhatTheScriptsPublishAsJacksonsMapHadIt() throws Exception {
        List<String> events = List.of(EVENT,
                "{\"type\":\"deregistered\",\"rev\":44,\"id\":\"orders-1\",\"digest\":\"ab\",\"inc\":\"cd\"}",
                "{\"type\":\"expired\",\"rev\":45,\"id\":\"orders-2\",\"digest\":\"ab\",\"inc\":\"cd\"}",
                "{\"type\":\"purged\",\"rev\":45,\"inc\":\"5f0c1e9a2b7d4c11\"}",
                "{\"type\":\"updated\",\"rev\":9223372036854775807,\"id\":\"a\\/b\",\"instance\":{}}",
                "{\"type\":\"registered\",\"rev\":2147483648,\"id\":\"x\",\"instance\":[],\"extra\":[1,{\"a\":[]}]}",
                " { \"rev\" : -7 , \"id\" : null , \"type\" : true , \"x\" : false , \"y\" : 1.5e3 , \"z\" : -0.25 } ",
                "{\"rev\":92233720368547758070,\"id\":\"caf\\u00e9 \\ud83d\\ude00\\n\\t\\\"\\\\\"}",
                "{}");
        for (String json : events) {
            assertSameAsJackson(json);
        }
    }

    @Test
    void readsTheInstanceOfAnEventAsTheMapBasedReadingBuiltIt() throws Exception {
        Random random = new Random(17);
        for (int round = 0; round < 2_000; round++) {
            Map<String, Object> instance = JsonTest.randomInstanceFields(random, round);
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("type", random.nextBoolean() ? "registered" : "updated");
            event.put("rev", 1 + random.nextInt(Integer.MAX_VALUE));
            event.put("id", "orders-" + round);
            event.put("instance", instance);
            event.put("digest", Long.toHexString(random.nextLong()));
            event.put("inc", Long.toHexString(random.nextLong()));
            String json = Json.write(event).replace("/", "\\/"); // as cjson writes it

            Map<String, Object> read = assertSameAsJackson(json);
            @SuppressWarnings("unchecked")
            Map<String, Object> jackson = (Map<String, Object>) Json.read(json).get("instance");
            assertThat(new InstanceReader(((InstanceReader.Nested) read.get("instance")).json())
                    .read("orders", "orders-" + round, null)).as(json)
                    .isEqualTo(JsonTest.mapBasedInstance("orders", "orders-" + round, jackson));
        }
    }

    static List<String> malformed() {
        List<String> texts = new ArrayList<>(List.of("", "{", "[]", "null", "\"x\"", "42",
                EVENT.substring(0, EVENT.length() - 1), EVENT.replaceFirst("}$", ",}"), "{rev:1}",
                "{\"rev\":1,\"rev\":2,\"id\":\"x\"}", "{\"rev\":01}", "{\"rev\":1.}", "{\"rev\":1e}", "{\"rev\":-}", "{\"rev\":+1}",
                "{\"rev\":1 \"id\":\"x\"}", "{\"rev\":tru}", "{\"rev\":nul}", "{\"id\":\"a\u0001b\"}",
                "{\"id\":\"a\\qb\"}", "{\"id\":\"a\\u12\"}", "{\"rev\":1,}", "{,}", "{\"rev\"}",
                EVENT.replace("{\"zone\"", "{\"zone\"\"x\""), EVENT.replace("\"instance\":{", "\"instance\":[")));
        return texts;
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void refusesWhatJacksonRefused(String json) {
        // Jackson-jr read "null" as no map at all, which the view then failed on: refused all the same
        if (!json.equals("null")) {
            assertThatThrownBy(() -> JSON.std.mapFrom(json)).as("Jackson-jr: " + json).isInstanceOf(Exception.class);
        }
        assertThatThrownBy(() -> InstanceReader.event(json)).as(json).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @MethodSource("trailing")
    void refusesTextAfterTheEventWhichJacksonIgnored(String json) throws Exception {
        assertThat(JSON.std.mapFrom(json)).as("Jackson-jr: " + json).isEqualTo(JSON.std.mapFrom(EVENT));
        assertThatThrownBy(() -> InstanceReader.event(json)).as(json).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected the end");
    }

    static List<String> trailing() {
        return List.of(EVENT + " trailing", EVENT + "}", EVENT + "{}");
    }

    @Test
    void aServiceEventIsAppliedFromItsText() {
        ServiceSource source = new ServiceSource(new Keys(Namespace.of("test")), null, null,
                Snapshots.services(Optional.empty(), "test", "redis://test", Runnable::run));
        ServiceInstance expected = ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8443)
                .secure(true).weight(250).status(InstanceStatus.DOWN).ttl(Duration.ofSeconds(15))
                .metadata("zone", "eu-1").metadata("version", "2")
                .registeredAt(Instant.ofEpochMilli(1764000000123L)).build();
        ViewSource.Batch<ServiceSnapshot, ServiceEvent> batch = source.batch("orders",
                new SyncedView.Versioned<>(41, new ServiceSnapshot("orders", 41, List.of())));
        batch.apply(new ViewSource.Message(42, source.read(EVENT)));

        assertThat(batch.value().instances()).containsExactly(expected);
        assertThat(batch.events()).containsExactly(new InstanceRegistered("orders", 42, expected));
    }

    @Test
    void anEventWhoseInstanceIsNotAnInstanceCannotBeApplied() {
        ServiceSource source = new ServiceSource(new Keys(Namespace.of("test")), null, null,
                Snapshots.services(Optional.empty(), "test", "redis://test", Runnable::run));
        for (String json : List.of(EVENT.replace("\"instance\":{", "\"instance\":[{").replace("}},", "}]},"),
                EVENT.replaceFirst("\"instance\":\\{.*},\"digest\"", "\"instance\":\"text\",\"digest\""),
                EVENT.replaceFirst("\"instance\":\\{.*},\"digest\"", "\"digest\""),
                EVENT.replace("\"10.0.0.7\"", "\"bad host\""), EVENT.replace("\"port\":8443", "\"port\":\"8443\""))) {
            ViewSource.Batch<ServiceSnapshot, ServiceEvent> batch = source.batch("orders",
                    new SyncedView.Versioned<>(41, new ServiceSnapshot("orders", 41, List.of())));

            assertThatThrownBy(() -> batch.apply(new ViewSource.Message(42, source.read(json)))).as(json)
                    .isInstanceOf(RuntimeException.class);
            assertThatThrownBy(() -> batch.apply(new ViewSource.Message(42, Json.read(json)))).as("Jackson: " + json)
                    .isInstanceOf(RuntimeException.class);
        }
    }

    /** Reads {@code json} both ways; the fields are equal, a nested value's text read by Jackson-jr as its value. */
    private static Map<String, Object> assertSameAsJackson(String json) throws Exception {
        Map<String, Object> read = InstanceReader.event(json);
        Map<String, Object> jackson = JSON.std.mapFrom(json);
        Map<String, Object> nestedRead = new LinkedHashMap<>();
        for (Map.Entry<String, Object> field : read.entrySet()) {
            Object value = field.getValue();
            nestedRead.put(field.getKey(), value instanceof InstanceReader.Nested nested
                    ? JSON.std.anyFrom(nested.json()) : value);
        }
        assertThat(nestedRead).as(json).isEqualTo(jackson);
        for (Map.Entry<String, Object> field : jackson.entrySet()) { // and of the same types (Integer, Long, ...)
            Object value = field.getValue();
            Object mine = read.get(field.getKey());
            if (value instanceof Map<?, ?> || value instanceof List<?>) {
                assertThat(mine).as(json + ": " + field.getKey()).isInstanceOf(InstanceReader.Nested.class);
            } else if (value != null) {
                assertThat(mine).as(json + ": " + field.getKey()).isExactlyInstanceOf(value.getClass());
            }
        }
        return read;
    }
}
