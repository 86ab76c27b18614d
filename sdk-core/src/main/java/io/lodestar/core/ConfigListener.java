package io.lodestar.core;

import io.lodestar.core.event.ConfigEvent;

/**
 * Receives the changes of a config entry (or of all entries of a namespace): once per version, in version
 * order, on a Lodestar thread (never Redis' I/O thread). A listener that throws does not stop the others.
 */
@FunctionalInterface
public interface ConfigListener {
    /** @param event the change; switch over the sealed {@link ConfigEvent} types */
    void onEvent(ConfigEvent event);
}
