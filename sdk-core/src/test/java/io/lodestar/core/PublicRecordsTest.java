package io.lodestar.core;

import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigRemoved;
import io.lodestar.core.event.ConfigRolledBack;
import io.lodestar.core.event.InstanceDeregistered;
import io.lodestar.core.event.InstanceExpired;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.InstanceUpdated;
import io.lodestar.core.event.ServiceResynced;
import io.lodestar.core.event.ServicesChanged;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Every public record of the API refuses what it cannot hold with an {@link InvalidArgumentException} that names
 * the fields, never with a bare {@link NullPointerException} (or a later one, from an accessor).
 */
class PublicRecordsTest {
    private static final ViewStatus FRESH = new ViewStatus(false, Duration.ZERO, null, false);

    static Stream<Arguments> constructionsThatBreakARule() {
        return Stream.of(
                arguments("ConfigChanged", call(() -> new ConfigChanged(null, 1, null)),
                        List.of("configId", "entry")),
                arguments("ConfigRemoved", call(() -> new ConfigRemoved(null, 1)), List.of("configId")),
                arguments("ConfigRolledBack", call(() -> new ConfigRolledBack(null, 2, 1, null)),
                        List.of("configId", "entry")),
                arguments("InstanceRegistered", call(() -> new InstanceRegistered(null, 1, null)),
                        List.of("serviceId", "instance")),
                arguments("InstanceUpdated", call(() -> new InstanceUpdated(null, 1, null, null)),
                        List.of("serviceId", "instance")),
                arguments("InstanceDeregistered", call(() -> new InstanceDeregistered(null, 1, null)),
                        List.of("serviceId", "instanceId")),
                arguments("InstanceExpired", call(() -> new InstanceExpired(null, 1, null)),
                        List.of("serviceId", "instanceId")),
                arguments("ServiceResynced", call(() -> new ServiceResynced(null, 1, null)),
                        List.of("serviceId", "snapshot")),
                arguments("ServicesChanged", call(() -> new ServicesChanged(null, Set.of(), null)),
                        List.of("services", "removed")),
                arguments("ServicesChanged with a null element",
                        call(() -> new ServicesChanged(Set.of(), Set.of(), Collections.singleton(null))),
                        List.of("removed[0]")),
                arguments("ViewStatus", call(() -> new ViewStatus(true, null, null, false)), List.of("staleFor")),
                arguments("ClientHealth", call(() -> new ClientHealth(null, FRESH, null, null)),
                        List.of("nodes", "config", "registrations")),
                arguments("ClientHealth.Node", call(() -> new ClientHealth.Node(null, true, null)),
                        List.of("address")),
                arguments("ClientHealth.Registrations",
                        call(() -> new ClientHealth.Registrations(-1, null, -2, -3, -4)),
                        List.of("held", "lateRenewals", "failedRenewals", "takenOver")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("constructionsThatBreakARule")
    void refusesWithTheBrokenFieldsNamed(String record, ThrowingCallable construction, List<String> fields) {
        InvalidArgumentException thrown = InvalidArguments.thrownBy(construction);

        assertThat(thrown.violations()).extracting(Violation::field).containsExactlyElementsOf(fields);
    }

    /** Names the lambda's type, which {@code arguments(...)} cannot infer. */
    private static ThrowingCallable call(ThrowingCallable call) {
        return call;
    }
}
