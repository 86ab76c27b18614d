package io.lodestar.micronaut;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.Violation;
import io.lodestar.redis.RedisLodestar;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.exceptions.ConfigurationException;

import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/** The core concern: one {@link LodestarClient} per application context, closed with it. */
@Factory
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
class LodestarFactory {

    // @Context: created with the application context, so bad settings or (with FAIL_FAST) an unreachable Redis
    // stop the start-up instead of the first request that needs the client.
    @Context
    @Bean(preDestroy = "close")
    LodestarClient lodestarClient(LodestarConfiguration configuration, List<LodestarBuilderCustomizer> customizers) {
        RedisLodestar.Builder builder = RedisLodestar.builder(options(configuration));
        customizers.forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    /**
     * Validates the bound settings, reporting each violation under its property name (as the user wrote it in
     * application.yml), not the Java field name the core knows.
     */
    static LodestarOptions options(LodestarConfiguration configuration) {
        try {
            return configuration.toOptions();
        } catch (InvalidArgumentException e) {
            throw new ConfigurationException(describe(e, field -> LodestarConfiguration.PREFIX + "." + kebab(field)), e);
        }
    }

    /** The violations of {@code e}, each under the property that holds the field ({@code property}). */
    static String describe(InvalidArgumentException e, UnaryOperator<String> property) {
        return "Invalid Lodestar configuration: " + e.violations().stream()
                .map(v -> new Violation(property.apply(v.field()), v.value(), v.rule()).message())
                .collect(Collectors.joining("; "))
                + ". Fix these properties (application.yml or environment).";
    }

    /** {@code commandTimeout} to {@code command-timeout}, as Micronaut binds it. */
    static String kebab(String field) {
        return field.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
