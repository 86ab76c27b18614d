package io.lodestar.micronaut;

import io.lodestar.core.ConfigService;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.redis.RedisLodestar;
import io.micronaut.context.env.Environment;
import io.micronaut.context.env.EnvironmentPropertySource;
import io.micronaut.context.env.PropertySource;
import io.micronaut.context.env.PropertySourceReader;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.discovery.config.ConfigurationClient;
import org.reactivestreams.Publisher;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Micronaut's distributed configuration from Lodestar: the configs named by {@code lodestar.config.ids}, each
 * parsed by the application's own {@link io.micronaut.context.env.PropertySourceLoader} for its format, become one
 * property source in which later ids override earlier ones, key by key.
 *
 * <p>Runs in the bootstrap context, before the application's beans exist, and again on every refresh; so it opens
 * its own short-lived client and closes it after reading. Micronaut's bootstrap locator blocks for the result
 * anyway (bounded by {@code micronaut.config-client.read-timeout}); the publisher reads on subscription, on the
 * caller's thread, because the core has no asynchronous single-config read.
 */
final class LodestarConfigurationClient implements ConfigurationClient {
    /** The name of the property source. */
    static final String NAME = "lodestar";
    /** Above environment variables, where other configuration clients place themselves. */
    static final int ORDER = EnvironmentPropertySource.POSITION + 100;

    private final LodestarConfiguration settings;
    private final LodestarConfigConfiguration config;

    LodestarConfigurationClient(LodestarConfiguration settings, LodestarConfigConfiguration config) {
        this.settings = settings;
        this.config = config;
    }

    @Override
    public Publisher<PropertySource> getPropertySources(Environment environment) {
        return Publishers.fromCompletableFuture(() -> {
            try {
                return CompletableFuture.completedFuture(read(environment));
            } catch (RuntimeException e) { // as onError, which the locator reports, not thrown from subscribe()
                return CompletableFuture.failedFuture(e);
            }
        });
    }

    /**
     * All configured ids as one property source, flattened to dotted keys so that a later id overrides single
     * keys of an earlier one, not whole subtrees. A missing id adds nothing (it may be created later: the
     * refresher sees that too).
     */
    PropertySource read(Environment environment) {
        Map<String, Object> merged = new LinkedHashMap<>();
        try (LodestarClient client = RedisLodestar.create(LodestarFactory.options(settings))) {
            ConfigService configs = client.config();
            for (String id : config.getIds()) {
                configs.get(id).ifPresent(entry -> flatten("", parse(entry, environment), merged));
            }
        } catch (UnavailableException e) {
            throw new ConfigurationException("Cannot read Lodestar's distributed configuration ("
                    + LodestarConfigConfiguration.PREFIX + ".ids " + config.getIds() + " in namespace '"
                    + settings.getNamespace() + "'): " + e.getMessage() + ". Micronaut's configuration client reads "
                    + "it once, before the application starts, and has no optional import: start Redis first; or "
                    + "set lodestar.config-snapshot-directory so that later starts read the last good copy while "
                    + "Redis is down; or start without it (micronaut.config-client.enabled: false, or "
                    + LodestarConfigConfiguration.ENABLED + ": false).", e);
        }
        return PropertySource.of(NAME, merged, ORDER);
    }

    private static void flatten(String prefix, Map<?, ?> values, Map<String, Object> into) {
        values.forEach((key, value) -> {
            String name = prefix + key;
            if (value instanceof Map<?, ?> nested) {
                flatten(name + ".", nested, into);
            } else {
                into.put(name, value);
            }
        });
    }

    /**
     * @throws ConfigurationException when the format has no loader in this application (e.g. YAML without
     *                                SnakeYAML) or cannot become properties (TEXT)
     */
    static Map<String, Object> parse(ConfigEntry entry, Environment environment) {
        String extension = switch (entry.format()) {
            case PROPERTIES -> "properties";
            case YAML -> "yml";
            case JSON -> "json";
            case TEXT -> throw new ConfigurationException("Lodestar config '" + entry.id()
                    + "' is TEXT, which cannot become properties: store it as PROPERTIES, YAML or JSON, or remove it"
                    + " from " + LodestarConfigConfiguration.PREFIX + ".ids");
        };
        PropertySourceReader reader = environment.getPropertySourceLoaders().stream()
                .filter(loader -> loader.getExtensions().contains(extension))
                .findFirst()
                .orElseThrow(() -> new ConfigurationException("Lodestar config '" + entry.id() + "' is "
                        + entry.format() + ", but this application has no property source loader for ."
                        + extension + " files: add one (for YAML, org.yaml:snakeyaml)"));
        return reader.read(entry.id(), entry.content().getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String getDescription() {
        return "lodestar " + config.getIds();
    }
}
