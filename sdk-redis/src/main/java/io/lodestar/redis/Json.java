package io.lodestar.redis;

import com.fasterxml.jackson.jr.ob.JSON;
import io.lodestar.core.LodestarException;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ServiceInstance;

import java.io.IOException;
import java.util.Collection;
import java.util.Map;

/**
 * The JSON written to Redis and read back from it (instances, events). Lua scripts read and write the same
 * fields with cjson: keep both sides in step (see docs/redis.md, "Event protocol").
 */
final class Json {
    private static final JSON JSON_CODEC = JSON.std;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private Json() {
    }

    /**
     * The stored form of an instance, without registeredAt (Redis sets it). Written field by field, as Jackson-jr
     * wrote it from a map (same order, same escapes), without the intermediate map and generator.
     */
    static String instance(ServiceInstance instance) {
        Map<String, String> metadata = instance.metadata();
        StringBuilder out = new StringBuilder(112 + instance.host().length() + 40 * metadata.size());
        out.append("{\"host\":");
        string(out, instance.host());
        out.append(",\"port\":").append(instance.port())
                .append(",\"secure\":").append(instance.secure())
                .append(",\"weight\":").append(instance.weight())
                .append(",\"status\":\"").append(instance.status().name())
                .append("\",\"ttl\":").append(instance.ttl().toMillis())
                .append(",\"metadata\":");
        object(out, metadata);
        return out.append('}').toString();
    }

    /**
     * Reads the stored form of an instance (as Redis' cjson wrote it: any field order, escaped slashes) straight
     * into the instance, without an intermediate map. Unknown fields (a newer client's) are skipped.
     *
     * @throws RuntimeException when the JSON is malformed or a field is missing, of the wrong type or invalid
     */
    static ServiceInstance instance(String serviceId, String instanceId, String json) {
        return instance(serviceId, instanceId, json, null);
    }

    /** Like {@link #instance(String, String, String)}, stamped with the region of the Redis it came from. */
    static ServiceInstance instance(String serviceId, String instanceId, String json, String region) {
        return new InstanceReader(json).read(serviceId, instanceId, region);
    }

    /** A map of strings as a JSON object (metadata for update_instance.lua). */
    static String object(Map<String, String> map) {
        StringBuilder out = new StringBuilder(2 + 40 * map.size());
        object(out, map);
        return out.toString();
    }

    private static void object(StringBuilder out, Map<String, String> map) {
        out.append('{');
        boolean first = true;
        for (Map.Entry<String, String> entry : map.entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            string(out, entry.getKey());
            out.append(':');
            string(out, entry.getValue());
        }
        out.append('}');
    }

    static String write(Object value) {
        try {
            return JSON_CODEC.asString(value);
        } catch (IOException e) {
            throw new LodestarException("Cannot write JSON for " + value.getClass().getSimpleName(), e);
        }
    }

    static Map<String, Object> read(String json) {
        try {
            return JSON_CODEC.mapFrom(json);
        } catch (IOException e) {
            throw new LodestarException("Unreadable JSON from Redis (written by another program?): "
                    + Validation.show(json), e);
        }
    }

    /** Strings as a JSON array (metadata keys to remove, for update_instance.lua). */
    static String array(Collection<String> values) {
        StringBuilder out = new StringBuilder(2 + 16 * values.size()).append('[');
        boolean first = true;
        for (String value : values) {
            if (!first) {
                out.append(',');
            }
            first = false;
            string(out, value);
        }
        return out.append(']').toString();
    }

    /** A JSON string: quotes, backslashes and control characters escaped, as Jackson does; null as null. */
    private static void string(StringBuilder out, String value) {
        if (value == null) {
            out.append("null");
            return;
        }
        out.append('"');
        int plain = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            out.append(value, plain, i);
            plain = i + 1;
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        out.append(value, plain, value.length()).append('"');
    }
}
