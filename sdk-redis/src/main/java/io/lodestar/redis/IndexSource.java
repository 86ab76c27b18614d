package io.lodestar.redis;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.event.ServicesChanged;

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A namespace index (which services, or which configs, exist) as the single topic {@code ""} of a
 * {@link SyncedView}. Both indexes publish {@code "added"}/{@code "removed"} events with the member's {@code id};
 * the config service uses the {@link ServicesChanged} event internally as a plain set difference.
 */
final class IndexSource implements ViewSource<Set<String>, ServicesChanged> {
    static final String TOPIC = "";

    private final String channel;
    private final Supplier<CompletionStage<SyncedView.Versioned<Set<String>>>> load;
    private final Supplier<CompletionStage<Long>> revision;
    private final UnaryOperator<String> validId;
    /** How long a member Redis lost is kept for its owners to write it back; null: until written again. */
    private final Function<String, Duration> keepLost;

    /**
     * The service index. A service Redis lost is kept as long as its instances may still come back:
     * {@code keepLost} gives the time for a service (see {@link ServiceSource#keptFor}), for the owners to register
     * it again; one that nobody registers again then leaves the index.
     */
    IndexSource(Keys keys, RegistryReads reads, Function<String, Duration> keepLost) {
        this(keys.services().channel(), reads::services, reads::servicesRevision, Validation::requireServiceId,
                keepLost);
    }

    /**
     * An index whose members Redis lost stay until written again or removed (the config index: nobody writes a
     * config back on their own): its channel, how to read it, how to read its revision, and the rule of its
     * members' ids (an event's id is checked like a user's: anyone allowed to publish on the channel can forge one).
     */
    IndexSource(String channel, Supplier<CompletionStage<SyncedView.Versioned<Set<String>>>> load,
                Supplier<CompletionStage<Long>> revision, UnaryOperator<String> validId) {
        this(channel, load, revision, validId, member -> null);
    }

    IndexSource(String channel, Supplier<CompletionStage<SyncedView.Versioned<Set<String>>>> load,
                Supplier<CompletionStage<Long>> revision, UnaryOperator<String> validId,
                Function<String, Duration> keepLost) {
        this.channel = channel;
        this.load = load;
        this.revision = revision;
        this.validId = validId;
        this.keepLost = keepLost;
    }

    @Override
    public String channel(String id) {
        return channel;
    }

    @Override
    public CompletionStage<SyncedView.Versioned<Set<String>>> load(String id) {
        return load.get();
    }

    /** An index keeps no digest, and its incarnation is not compared: its revision alone. */
    @Override
    public CompletionStage<SyncedView.Versioned<Void>> stamp(String id) {
        return revision.get().thenApply(revision -> new SyncedView.Versioned<>(revision, null));
    }

    /** The real event of the held revision added a member the held set has, or removed one it lacks. */
    @Override
    public boolean describes(SyncedView.Versioned<Set<String>> held, ViewSource.Message message) {
        Object type = message.fields().get("type");
        Object member = message.fields().get("id");
        return "added".equals(type) ? held.value().contains(member)
                : !"removed".equals(type) || !held.value().contains(member);
    }

    @Override
    public ViewSource.Batch<Set<String>, ServicesChanged> batch(String id, SyncedView.Versioned<Set<String>> current) {
        return new Batch(current.value());
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

    /**
     * Members Redis lost (absent from an index written anew) stay until written again or really removed, or (the
     * service index) until the owners of the service had the time to register it again.
     */
    @Override
    public Map<String, Duration> lost(String id, Set<String> held, Set<String> loaded) {
        Map<String, Duration> lost = new HashMap<>();
        held.stream().filter(member -> !loaded.contains(member))
                .forEach(member -> lost.put(member, keepLost.apply(member)));
        return lost;
    }

    @Override
    public Set<String> withKept(String id, Set<String> loaded, Set<String> from, Set<String> items) {
        Set<String> merged = new TreeSet<>(loaded);
        merged.addAll(items);
        return Collections.unmodifiableSet(merged);
    }

    /** The members whose owners did not write them back in time leave: one change that removes them all. */
    @Override
    public ViewSource.Dropped<Set<String>, ServicesChanged> drop(String id,
            SyncedView.Versioned<Set<String>> current, List<String> items) {
        Set<String> members = new TreeSet<>(current.value());
        Set<String> removed = new TreeSet<>(items);
        removed.retainAll(members);
        members.removeAll(removed);
        Set<String> value = Collections.unmodifiableSet(members);
        return new ViewSource.Dropped<>(value, removed.isEmpty() ? List.of()
                : List.of(new ServicesChanged(value, Set.of(), Collections.unmodifiableSet(removed))));
    }

    @Override
    public String item(ViewSource.Message message) {
        return message.fields().get("id") instanceof String member ? member : null;
    }

    /**
     * An index's events applied to one copy of the held set, made at the first event that changes it: one copy per
     * batch, and each event a lookup. Its listener event ({@link ServicesChanged} holds the whole set) is one for the batch: the
     * members it added and removed, from the held set to the new one.
     */
    private final class Batch implements ViewSource.Batch<Set<String>, ServicesChanged> {
        private final Set<String> held;
        private TreeSet<String> members;
        /** The members the batch added or removed, each once. */
        private final Set<String> touched = new TreeSet<>();
        private Set<String> value;

        Batch(Set<String> held) {
            this.held = held;
        }

        @Override
        public void apply(ViewSource.Message message) {
            String member = validId.apply((String) message.fields().get("id"));
            Object type = message.fields().get("type");
            if (!"added".equals(type) && !"removed".equals(type)) { // a newer client's event: re-read the index
                throw new IllegalArgumentException("unknown event type " + Validation.show(type));
            }
            boolean added = "added".equals(type);
            if (members == null) {
                if (held.contains(member) == added) {
                    return; // changes nothing: no copy yet
                }
                members = new TreeSet<>(held);
            }
            if (added ? members.add(member) : members.remove(member)) {
                touched.add(member);
            }
        }

        @Override
        public Set<String> value() {
            value = members == null ? held : Collections.unmodifiableSet(members);
            return value;
        }

        @Override
        public List<ServicesChanged> events() {
            Set<String> added = new TreeSet<>();
            Set<String> removed = new TreeSet<>();
            for (String member : touched) {
                boolean before = held.contains(member);
                boolean after = value.contains(member);
                if (after && !before) {
                    added.add(member);
                } else if (before && !after) {
                    removed.add(member);
                }
            }
            return added.isEmpty() && removed.isEmpty() ? List.of()
                    : List.of(new ServicesChanged(value, added, removed));
        }
    }
}
