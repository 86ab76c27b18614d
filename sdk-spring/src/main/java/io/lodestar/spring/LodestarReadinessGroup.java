package io.lodestar.spring;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.AdditionalPathsMapper;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;
import org.springframework.core.env.Environment;

import java.util.List;
import java.util.Set;

/**
 * Makes the {@code lodestar} indicator a member of Boot's {@code readiness} probe group, and of no other probe: while
 * Redis is down the application still serves from its views, so it should take no new traffic until Redis answers,
 * not be restarted (Boot's rule: external systems belong in readiness, never in liveness). A readiness group whose
 * members the user chose ({@value #INCLUDE}) is left as it is.
 *
 * <p>Boot adds the probe groups in a post-processor of the lowest precedence, as this one is; this one is registered
 * after it ({@link LodestarHealthAutoConfiguration} runs after Boot's probes), so it sees the readiness group.
 */
final class LodestarReadinessGroup implements HealthEndpointGroupsPostProcessor {
    static final String INCLUDE = "management.endpoint.health.group.readiness.include";
    private static final String READINESS = "readiness";

    private final boolean membersChosen;

    /** @param environment where the user may have chosen the readiness group's members */
    LodestarReadinessGroup(Environment environment) {
        this.membersChosen = Binder.get(environment).bind(INCLUDE, Bindable.setOf(String.class)).isBound();
    }

    @Override
    public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
        HealthEndpointGroup readiness = groups.get(READINESS);
        if (membersChosen || readiness == null) {
            return groups;
        }
        return new Groups(groups, new WithLodestar(readiness));
    }

    /** Boot's groups with the readiness group replaced; keeps the probes' additional paths ({@code /readyz}). */
    private record Groups(HealthEndpointGroups groups, HealthEndpointGroup readiness)
            implements HealthEndpointGroups, AdditionalPathsMapper {
        @Override
        public HealthEndpointGroup getPrimary() {
            return groups.getPrimary();
        }

        @Override
        public Set<String> getNames() {
            return groups.getNames();
        }

        @Override
        public HealthEndpointGroup get(String name) {
            return READINESS.equals(name) ? readiness : groups.get(name);
        }

        @Override
        public List<String> getAdditionalPaths(EndpointId endpointId, WebServerNamespace webServerNamespace) {
            return groups instanceof AdditionalPathsMapper paths
                    ? paths.getAdditionalPaths(endpointId, webServerNamespace) : null;
        }
    }

    /** Boot's readiness group plus the {@code lodestar} indicator; everything else is Boot's. */
    private record WithLodestar(HealthEndpointGroup group) implements HealthEndpointGroup {
        @Override
        public boolean isMember(String name) {
            return LodestarHealthAutoConfiguration.INDICATOR.equals(name) || group.isMember(name);
        }

        @Override
        public boolean showComponents(SecurityContext securityContext) {
            return group.showComponents(securityContext);
        }

        @Override
        public boolean showDetails(SecurityContext securityContext) {
            return group.showDetails(securityContext);
        }

        @Override
        public StatusAggregator getStatusAggregator() {
            return group.getStatusAggregator();
        }

        @Override
        public HttpCodeStatusMapper getHttpCodeStatusMapper() {
            return group.getHttpCodeStatusMapper();
        }

        @Override
        public AdditionalHealthEndpointPath getAdditionalPath() {
            return group.getAdditionalPath();
        }
    }
}
