package io.lodestar.spring;

import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.ConfigRolledBack;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The config ids imported through {@code spring.config.import=lodestar:…} with the content each import read: a
 * change is an event whose content differs from that, whenever the listener hears of it.
 *
 * <p>Content, not version numbers: versions start again at 1 when Redis loses its data (a new incarnation of the
 * entry), so "newer than the highest version seen" would ignore every change until the old maximum is passed. What
 * the environment holds depends on the content and its format only, so those are what is compared.
 */
final class LodestarConfigImports {
    private final Map<String, Held> held = new ConcurrentHashMap<>();

    void add(String configId) {
        held.putIfAbsent(configId, Held.ABSENT);
    }

    /** An import read this entry into the environment. */
    void loaded(ConfigEntry entry) {
        held.put(entry.id(), Held.of(entry));
    }

    /** An import found nothing (or could not read it): the environment holds nothing of this entry. */
    void absent(String configId) {
        held.put(configId, Held.ABSENT);
    }

    Set<String> configIds() {
        return Set.copyOf(held.keySet());
    }

    /** @return whether the entry after this event differs from what the application's environment holds */
    boolean differs(ConfigEvent event) {
        Held after;
        if (event instanceof ConfigChanged changed) {
            after = Held.of(changed.entry());
        } else if (event instanceof ConfigRolledBack rolledBack) {
            after = Held.of(rolledBack.entry());
        } else {
            after = Held.ABSENT; // ConfigRemoved
        }
        return !after.equals(held.getOrDefault(event.configId(), Held.ABSENT));
    }

    /** What the environment holds of one entry; {@link #ABSENT} (no hash, no format) when nothing. */
    private record Held(String contentHash, ConfigFormat format) {
        static final Held ABSENT = new Held("", null);

        static Held of(ConfigEntry entry) {
            return new Held(entry.contentHash(), entry.format());
        }
    }
}
