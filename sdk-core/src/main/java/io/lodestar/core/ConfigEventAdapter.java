package io.lodestar.core;

import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.ConfigRemoved;
import io.lodestar.core.event.ConfigRolledBack;

/**
 * A {@link ConfigListener} with one method per event type, each a no-op by default: override the ones you need
 * instead of switching over the sealed {@link ConfigEvent} types. An event type added later gets a method of its
 * own with a no-op default, so it never breaks an adapter.
 */
public interface ConfigEventAdapter extends ConfigListener {
    /** Dispatches to the method of the event's type; not meant to be overridden. */
    @Override
    default void onEvent(ConfigEvent event) {
        if (event instanceof ConfigChanged changed) {
            onChanged(changed);
        } else if (event instanceof ConfigRolledBack rolledBack) {
            onRolledBack(rolledBack);
        } else if (event instanceof ConfigRemoved removed) {
            onRemoved(removed);
        }
    }

    /** @param event the config was created or set to new content (also the initial state) */
    default void onChanged(ConfigChanged event) {
    }

    /** @param event an older version was made current again */
    default void onRolledBack(ConfigRolledBack event) {
    }

    /** @param event the config was removed */
    default void onRemoved(ConfigRemoved event) {
    }
}
