package io.lodestar.core.model;

import io.lodestar.core.internal.FrozenMetadata;
import io.lodestar.core.internal.Validation;

import java.util.Map;

/**
 * Who a client is when it decides whether a gray release applies to it ({@link GrayRule#matches}): an instance id
 * and its metadata. A client that registers an instance uses that instance's; one that does not can be given one
 * in the options ({@code LodestarOptions.Builder.identity}).
 *
 * @param instanceId the instance id (the rule's instance ids and its stable percentage hash it)
 * @param metadata   the metadata the rule's conditions look at, sorted, unmodifiable
 */
public record InstanceIdentity(String instanceId, Map<String, String> metadata) {
    /** @throws io.lodestar.core.InvalidArgumentException naming an invalid instance id or metadata entry */
    public InstanceIdentity {
        Validation.Collector checks = Validation.collector().instanceId("instanceId", instanceId);
        Map<String, String> frozen = FrozenMetadata.freeze("metadata", metadata, checks);
        checks.throwIfInvalid();
        metadata = frozen;
    }

    /** @return the identity of a registered instance */
    public static InstanceIdentity of(ServiceInstance instance) {
        return new InstanceIdentity(instance.instanceId(), instance.metadata());
    }
}
