package io.lodestar.spring;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.redis.RedisLodestar;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.bootstrap.BootstrapContext;
import org.springframework.boot.bootstrap.BootstrapRegistry.InstanceSupplier;
import org.springframework.boot.bootstrap.ConfigurableBootstrapContext;
import org.springframework.boot.context.config.ConfigDataLocation;
import org.springframework.boot.context.config.ConfigDataLocationResolver;
import org.springframework.boot.context.config.ConfigDataLocationResolverContext;
import org.springframework.boot.context.config.Profiles;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.List;

/**
 * Resolves {@code spring.config.import=lodestar:<config-id>} (and {@code optional:lodestar:…}). The client that
 * reads the imports is created once, from the {@code lodestar.*} properties known at that point, and handed to the
 * application context as its {@code lodestarClient} bean when the bootstrap phase ends: one client, one set of
 * connections, closed with the context. It is created before the application context (so without Boot's Lettuce
 * {@code ClientResources} and {@code LodestarClientBuilderCustomizer}s); its meters are bound to the application's
 * {@code MeterRegistry} once that exists.
 *
 * <p>A Spring Cloud refresh re-runs the imports with the same bootstrap context (Spring Cloud Context keeps it as
 * its {@code bootstrapContext} bean), so it reuses this client; {@code LodestarConfigRefreshIT} checks that no
 * refresh connects another one.
 */
class LodestarConfigDataLocationResolver implements ConfigDataLocationResolver<LodestarConfigDataResource> {
    static final String PREFIX = "lodestar:";
    private static final String BEAN_NAME = "lodestarClient";

    @Override
    public boolean isResolvable(ConfigDataLocationResolverContext context, ConfigDataLocation location) {
        return location.hasPrefix(PREFIX);
    }

    /**
     * An import written in a config file. One given on the command line, in {@code SPRING_CONFIG_IMPORT} or as a
     * system property (no parent resource) is resolved before the application's config files are read, so it is
     * deferred to {@link #resolveProfileSpecific}: Boot's second pass, whose binder sees their {@code lodestar.*}.
     */
    @Override
    public List<LodestarConfigDataResource> resolve(ConfigDataLocationResolverContext context,
                                                    ConfigDataLocation location) {
        return context.getParent() == null ? List.of() : List.of(resource(context, location));
    }

    /** The deferred imports of {@link #resolve}; Boot treats their entries as profile-specific. */
    @Override
    public List<LodestarConfigDataResource> resolveProfileSpecific(ConfigDataLocationResolverContext context,
                                                                   ConfigDataLocation location, Profiles profiles) {
        return context.getParent() == null ? List.of(resource(context, location)) : List.of();
    }

    private static LodestarConfigDataResource resource(ConfigDataLocationResolverContext context,
                                                       ConfigDataLocation location) {
        ConfigurableBootstrapContext bootstrap = context.getBootstrapContext();
        if (!bootstrap.isRegistered(LodestarClient.class)) {
            Binder binder = context.getBinder();
            LodestarProperties properties = bind(binder);
            if (properties.getRedisUri() == null) {
                throw new IllegalStateException(noRedisUri(location, properties));
            }
            bootstrap.register(LodestarClient.class, InstanceSupplier.from(() -> connect(binder)));
            bootstrap.register(LodestarConfigImports.class, InstanceSupplier.of(new LodestarConfigImports()));
            bootstrap.addCloseListener(event -> handOver(event.getBootstrapContext(), event.getApplicationContext()));
        }
        String configId = location.getNonPrefixedValue(PREFIX);
        bootstrap.get(LodestarConfigImports.class).add(configId);
        return new LodestarConfigDataResource(configId, location.isOptional());
    }

    private static String noRedisUri(ConfigDataLocation location, LodestarProperties properties) {
        return "spring.config.import=" + location + " needs lodestar.redis-uri, which is not set (namespace '"
                + properties.getNamespace() + "', redis-uri null). Set lodestar.redis-uri (and lodestar.namespace) in "
                + "application.yml or application.properties, or pass them the way the import is passed: "
                + "--lodestar.redis-uri=redis://host:6379 --lodestar.namespace=prod on the command line, "
                + "LODESTAR_REDIS_URI and LODESTAR_NAMESPACE in the environment, or -Dlodestar.redis-uri=...";
    }

    private static void handOver(BootstrapContext bootstrap, ConfigurableApplicationContext application) {
        if (!(application.getBeanFactory() instanceof BeanDefinitionRegistry beans)
                || beans.containsBeanDefinition(BEAN_NAME)) {
            return;
        }
        LodestarClient client = bootstrap.get(LodestarClient.class);
        RootBeanDefinition definition = new RootBeanDefinition(LodestarClient.class, () -> client);
        definition.setDestroyMethodName("close");
        beans.registerBeanDefinition(BEAN_NAME, definition);
        LodestarConfigImports imports = bootstrap.get(LodestarConfigImports.class);
        beans.registerBeanDefinition("lodestarConfigImports",
                new RootBeanDefinition(LodestarConfigImports.class, () -> imports));
        beans.registerBeanDefinition("lodestarImportedClient", new RootBeanDefinition(ImportedClient.class,
                () -> new ImportedClient(client)));
    }

    /**
     * Marks the application's client as the one created for the imports, before the application's
     * {@code MeterRegistry} existed: {@code LodestarAutoConfiguration} binds its meters once the registry does.
     */
    record ImportedClient(LodestarClient client) {
    }

    private static LodestarProperties bind(Binder binder) {
        return binder.bind(LodestarProperties.PREFIX, LodestarProperties.class).orElseGet(LodestarProperties::new);
    }

    private static LodestarClient connect(Binder binder) {
        LodestarProperties properties = bind(binder);
        LodestarOptions options;
        try {
            options = properties.toOptions();
        } catch (InvalidArgumentException e) {
            throw InvalidLodestarPropertiesException.of(LodestarProperties.PREFIX, e);
        }
        return RedisLodestar.create(options);
    }
}
