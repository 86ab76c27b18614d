package io.lodestar.spring;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The config ids imported through {@code spring.config.import=lodestar:…} with the version each import read (0 for
 * an optional one that did not exist): a change is a version newer than that, whenever the listener hears of it.
 */
final class LodestarConfigImports {
    private final Map<String, Long> versions = new ConcurrentHashMap<>();

    void add(String configId) {
        versions.putIfAbsent(configId, 0L);
    }

    void loaded(String configId, long version) {
        versions.merge(configId, version, Math::max);
    }

    Set<String> configIds() {
        return Set.copyOf(versions.keySet());
    }

    /** @return whether the application's environment is older than this version of the entry */
    boolean isNewer(String configId, long version) {
        return version > versions.getOrDefault(configId, 0L);
    }
}
