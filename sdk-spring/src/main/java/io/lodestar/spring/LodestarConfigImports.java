package io.lodestar.spring;

import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;

/** The config ids imported through {@code spring.config.import=lodestar:…}: what a change in Redis refreshes. */
final class LodestarConfigImports {
    private final Set<String> configIds = new ConcurrentSkipListSet<>();

    void add(String configId) {
        configIds.add(configId);
    }

    Set<String> configIds() {
        return Set.copyOf(configIds);
    }
}
