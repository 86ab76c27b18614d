package io.lodestar.redis;

import com.fasterxml.jackson.jr.ob.JSON;
import io.lodestar.core.LodestarException;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON written to Redis and read back from it (instances, events). Lua scripts read and write the same
 * fields with cjson: keep both sides in step (see docs/redis.md, "Event protocol").
 */
final class Json {
    private static final JSON JSON_CODEC = JSON.std;

    private Json() {
    }

    /** The stored form of an instance, without registeredAt (Redis sets it). */
    static String instance(ServiceInstance instance) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("host", instance.host());
        fields.put("port", instance.port());
        fields.put("secure", instance.secure());
        fields.put("weight", instance.weight());
        fields.put("status", instance.status().name());
        fields.put("ttl", instance.ttl().toMillis());
        fields.put("metadata", instance.metadata());
        return write(fields);
    }

    static ServiceInstance instance(String serviceId, String instanceId, String json) {
        return instance(serviceId, instanceId, read(json));
    }

    @SuppressWarnings("unchecked")
    static ServiceInstance instance(String serviceId, String instanceId, Map<String, Object> fields) {
        Object metadata = fields.get("metadata");
        Number registeredAt = (Number) fields.get("registeredAt");
        return ServiceInstance.builder(serviceId, instanceId)
                .host((String) fields.get("host"))
                .port(((Number) fields.get("port")).intValue())
                .secure(Boolean.TRUE.equals(fields.get("secure")))
                .weight(((Number) fields.get("weight")).intValue())
                .status(status(fields.get("status")))
                .ttl(Duration.ofMillis(((Number) fields.get("ttl")).longValue()))
                .metadata(metadata instanceof Map<?, ?> map ? (Map<String, String>) map : Map.of())
                .registeredAt(registeredAt == null ? null : Instant.ofEpochMilli(registeredAt.longValue()))
                .build();
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
                    + io.lodestar.core.internal.Validation.show(json), e);
        }
    }

    static String array(List<String> values) {
        return write(values);
    }

    /** A status a newer client wrote reads as UNKNOWN (never chosen), so one instance cannot make a service unreadable. */
    private static InstanceStatus status(Object stored) {
        for (InstanceStatus status : InstanceStatus.values()) {
            if (status.name().equals(stored) && status != InstanceStatus.UNKNOWN) {
                return status;
            }
        }
        if (!(stored instanceof String)) {
            throw new IllegalArgumentException("status must be a string, but was " + Validation.show(stored));
        }
        return InstanceStatus.UNKNOWN;
    }
}
