package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.model.ConfigEntry;
import org.apache.commons.logging.Log;
import org.springframework.boot.context.config.ConfigData;
import org.springframework.boot.context.config.ConfigDataLoader;
import org.springframework.boot.context.config.ConfigDataLoaderContext;
import org.springframework.boot.context.config.ConfigDataResourceNotFoundException;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * Loads one imported config entry into property sources with Boot's own loaders: {@code PROPERTIES} as a properties
 * file, {@code YAML} and {@code JSON} (a subset of YAML) as YAML documents. A missing entry is a
 * {@link ConfigDataResourceNotFoundException}, which Boot ignores for an {@code optional:} import.
 *
 * <p>While Redis cannot be reached (the client started offline, and no snapshot directory holds the entry), an
 * {@code optional:} import is skipped with a warning (the config refresh brings it in once Redis answers, when Spring
 * Cloud Context is there); any other import fails the start with a {@link LodestarConfigImportException}. With
 * {@code lodestar.fail-fast=true} the client cannot even be created, and every import fails the start.
 */
class LodestarConfigDataLoader implements ConfigDataLoader<LodestarConfigDataResource> {
    private final Log log;

    /** @param logs Boot's logs for the time before the logging system is set up */
    LodestarConfigDataLoader(DeferredLogFactory logs) {
        this.log = logs.getLog(LodestarConfigDataLoader.class);
    }

    @Override
    public ConfigData load(ConfigDataLoaderContext context, LodestarConfigDataResource resource) throws IOException {
        LodestarClient lodestar = context.getBootstrapContext().get(LodestarClient.class);
        LodestarConfigImports imports = context.getBootstrapContext().get(LodestarConfigImports.class);
        Optional<ConfigEntry> found;
        try {
            found = lodestar.config().get(resource.configId());
        } catch (UnavailableException e) {
            imports.absent(resource.configId());
            if (!resource.optional()) {
                throw new LodestarConfigImportException(resource, e);
            }
            log.warn("Skipping optional:" + resource + ": " + e.getMessage());
            throw new ConfigDataResourceNotFoundException(resource, e);
        }
        if (found.isEmpty()) {
            imports.absent(resource.configId());
            throw new ConfigDataResourceNotFoundException(resource);
        }
        ConfigEntry entry = found.get();
        imports.loaded(entry);
        String name = resource.toString();
        Resource content = new ByteArrayResource(entry.content().getBytes(StandardCharsets.UTF_8), name);
        List<PropertySource<?>> sources = switch (entry.format()) {
            case PROPERTIES -> new PropertiesPropertySourceLoader().load(name, content);
            case YAML, JSON -> new YamlPropertySourceLoader().load(name, content);
            case TEXT -> throw new IllegalStateException(name + " is TEXT, which holds no properties: store it as "
                    + "PROPERTIES, YAML or JSON to import it");
        };
        return new ConfigData(sources);
    }
}
