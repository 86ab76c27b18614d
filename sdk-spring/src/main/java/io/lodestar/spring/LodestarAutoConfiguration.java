package io.lodestar.spring;

import io.lettuce.core.resource.ClientResources;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.redis.RedisLodestar;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The client: one {@link LodestarClient} built from {@code lodestar.*}, sharing Boot's Lettuce
 * {@link ClientResources} when the application has exactly one (never closing it), publishing metrics to the
 * application's {@link MeterRegistry} when Micrometer is there, and closed with the context.
 * {@code lodestar.enabled=false} turns all of Lodestar off.
 */
// No ordering against Boot's Redis or Micrometer auto-configurations is needed: both are looked up when the
// client is created, after every bean definition is known.
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "lodestar.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LodestarProperties.class)
public class LodestarAutoConfiguration {

    /**
     * @param properties      the {@code lodestar.*} properties
     * @param clientResources Boot's Lettuce resources, used if there is exactly one
     * @param customizers     applied in order before the client connects
     * @return the connected client; the context closes it (which deregisters what it registered)
     * @throws InvalidLodestarPropertiesException (through the context) naming each bad property
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public LodestarClient lodestarClient(LodestarProperties properties, ObjectProvider<ClientResources> clientResources,
                                         ObjectProvider<LodestarClientBuilderCustomizer> customizers) {
        LodestarOptions options;
        try {
            options = properties.toOptions();
        } catch (InvalidArgumentException e) {
            throw InvalidLodestarPropertiesException.of(LodestarProperties.PREFIX, e);
        }
        RedisLodestar.Builder builder = RedisLodestar.builder(options);
        clientResources.ifUnique(builder::clientResources);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    /** Binds the client's meters to the application's registry; only when Micrometer is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Metrics {
        @Bean
        @ConditionalOnMissingBean(name = "lodestarMeterRegistryCustomizer")
        LodestarClientBuilderCustomizer lodestarMeterRegistryCustomizer(ObjectProvider<MeterRegistry> registry) {
            return builder -> registry.ifUnique(builder::meterRegistry);
        }

        /** The client of {@code spring.config.import} existed before the registry: bound once every bean exists. */
        @Bean
        @ConditionalOnMissingBean(name = "lodestarImportedClientMetrics")
        SmartInitializingSingleton lodestarImportedClientMetrics(
                ObjectProvider<LodestarConfigDataLocationResolver.ImportedClient> imported,
                ObjectProvider<MeterRegistry> registry) {
            return () -> imported.ifAvailable(client ->
                    registry.ifUnique(meters -> RedisLodestar.bindMetrics(client.client(), meters)));
        }
    }
}
