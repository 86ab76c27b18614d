package io.lodestar.redis;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.event.ServicesChanged;

import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A namespace index (which services, or which configs, exist) as the single topic {@code ""} of a
 * {@link SyncedView}. Both indexes publish {@code "added"}/{@code "removed"} events with the member's {@code id};
 * the config service uses the {@link ServicesChanged} event internally as a plain set difference.
 */
final class IndexSource implements SyncedView.Source<Set<String>, ServicesChanged> {
    static final String TOPIC = "";

    private final String channel;
    private final Supplier<CompletionStage<SyncedView.Versioned<Set<String>>>> load;
    private final Supplier<CompletionStage<Long>> revision;
    private final UnaryOperator<String> validId;

    /** The service index. */
    IndexSource(Keys keys, RegistryReads reads) {
        this(keys.services().channel(), reads::services, reads::servicesRevision, Validation::requireServiceId);
    }

    /**
     * Any index: its channel, how to read it, how to read its revision, and the rule of its members' ids (an
     * event's id is checked like a user's: anyone allowed to publish on the channel can forge one).
     */
    IndexSource(String channel, Supplier<CompletionStage<SyncedView.Versioned<Set<String>>>> load,
                Supplier<CompletionStage<Long>> revision, UnaryOperator<String> validId) {
        this.channel = channel;
        this.load = load;
        this.revision = revision;
        this.validId = validId;
    }

    @Override
    public String channel(String id) {
        return channel;
    }

    @Override
    public CompletionStage<SyncedView.Versioned<Set<String>>> load(String id) {
        return load.get();
    }

    @Override
    public CompletionStage<Long> revision(String id) {
        return revision.get();
    }

    /** The real event of the held revision added a member the held set has, or removed one it lacks. */
    @Override
    public boolean describes(SyncedView.Versioned<Set<String>> held, SyncedView.Message message) {
        Object type = message.fields().get("type");
        Object member = message.fields().get("id");
        return "added".equals(type) ? held.value().contains(member)
                : !"removed".equals(type) || !held.value().contains(member);
    }

    @Override
    public SyncedView.Applied<Set<String>, ServicesChanged> apply(String id, SyncedView.Versioned<Set<String>> current,
                                                                  SyncedView.Message message) {
        String service = validId.apply((String) message.fields().get("id"));
        Set<String> services = new TreeSet<>(current.value());
        Object type = message.fields().get("type");
        if (!"added".equals(type) && !"removed".equals(type)) { // a newer client's event: re-read the index
            throw new IllegalArgumentException("unknown event type " + Validation.show(type));
        }
        boolean added = "added".equals(type);
        boolean changed = added ? services.add(service) : services.remove(service);
        Set<String> now = Collections.unmodifiableSet(services);
        return new SyncedView.Applied<>(now, changed
                ? new ServicesChanged(now, added ? Set.of(service) : Set.of(), added ? Set.of() : Set.of(service))
                : null);
    }

    @Override
    public ServicesChanged resynced(String id, SyncedView.Versioned<Set<String>> before,
                                    SyncedView.Versioned<Set<String>> after) {
        if (before.value().equals(after.value())) {
            return null;
        }
        Set<String> added = new TreeSet<>(after.value());
        added.removeAll(before.value());
        Set<String> removed = new TreeSet<>(before.value());
        removed.removeAll(after.value());
        return new ServicesChanged(after.value(), added, removed);
    }
}
