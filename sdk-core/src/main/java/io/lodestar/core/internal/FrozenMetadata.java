package io.lodestar.core.internal;

import java.util.AbstractMap;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The metadata of a {@code ServiceInstance}: validated, sorted by key, unmodifiable. Only the factories here make
 * one, and only from metadata that passed {@link Validation.Collector#metadata}, so an instance built from another
 * instance's metadata (a copy with its registration time set, a builder that changed another field) neither copies
 * nor checks it again. Internal: not an API.
 */
public final class FrozenMetadata extends AbstractMap<String, String> {
    private static final FrozenMetadata EMPTY = new FrozenMetadata(new TreeMap<>());

    /** Never exposed, never modified after construction. */
    private final TreeMap<String, String> entries;
    /** The unmodifiable view the collection views come from, made when first asked for (most never are). */
    private Map<String, String> view;

    private FrozenMetadata(TreeMap<String, String> entries) {
        this.entries = entries;
    }

    private Map<String, String> view() {
        Map<String, String> made = view;
        if (made == null) {
            made = Collections.unmodifiableMap(entries); // safely published: its one field is final
            view = made;
        }
        return made;
    }

    /**
     * Checks {@code metadata} into {@code checks} and returns it frozen: itself when it is frozen already (checked
     * when it was made), else a sorted copy.
     *
     * @param field    the field name for violations
     * @param metadata the metadata, may be null (a violation)
     * @param checks   the collector the violations go to
     * @return the frozen metadata, or null when {@code metadata} broke a rule (then {@code checks} holds why)
     */
    public static FrozenMetadata freeze(String field, Map<String, String> metadata, Validation.Collector checks) {
        if (metadata instanceof FrozenMetadata frozen) {
            return frozen;
        }
        if (!valid(field, metadata, checks)) {
            return null;
        }
        return metadata.isEmpty() ? EMPTY : new FrozenMetadata(new TreeMap<>(metadata));
    }

    /**
     * Like {@link #freeze}, without the copy: for a reader that built the sorted map itself and hands it over (it
     * must not keep, modify or share it afterwards).
     *
     * @param field   the field name for violations
     * @param entries a map in natural key order that the caller gives up
     * @param checks  the collector the violations go to
     * @return the frozen metadata, or null when {@code entries} broke a rule (then {@code checks} holds why)
     */
    public static FrozenMetadata adopt(String field, TreeMap<String, String> entries, Validation.Collector checks) {
        if (entries.comparator() != null) {
            return freeze(field, entries, checks);
        }
        if (!valid(field, entries, checks)) {
            return null;
        }
        return entries.isEmpty() ? EMPTY : new FrozenMetadata(entries);
    }

    private static boolean valid(String field, Map<String, String> metadata, Validation.Collector checks) {
        int before = checks.count();
        checks.metadata(field, metadata);
        return checks.count() == before;
    }

    @Override
    public int size() {
        return entries.size();
    }

    @Override
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    @Override
    public boolean containsKey(Object key) {
        return entries.containsKey(key);
    }

    @Override
    public boolean containsValue(Object value) {
        return entries.containsValue(value);
    }

    @Override
    public String get(Object key) {
        return entries.get(key);
    }

    @Override
    public String getOrDefault(Object key, String defaultValue) {
        String value = entries.get(key);
        return value != null ? value : defaultValue;
    }

    @Override
    public Set<Entry<String, String>> entrySet() {
        return view().entrySet();
    }

    @Override
    public Set<String> keySet() {
        return view().keySet();
    }

    @Override
    public Collection<String> values() {
        return view().values();
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super String> action) {
        entries.forEach(action);
    }

    @Override
    public String put(String key, String value) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String remove(Object key) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean remove(Object key, Object value) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void putAll(Map<? extends String, ? extends String> map) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void clear() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void replaceAll(BiFunction<? super String, ? super String, ? extends String> function) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String putIfAbsent(String key, String value) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean replace(String key, String oldValue, String newValue) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String replace(String key, String value) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String computeIfAbsent(String key, Function<? super String, ? extends String> mapping) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String computeIfPresent(String key,
                                   BiFunction<? super String, ? super String, ? extends String> remapping) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String compute(String key, BiFunction<? super String, ? super String, ? extends String> remapping) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String merge(String key, String value,
                        BiFunction<? super String, ? super String, ? extends String> remapping) {
        throw new UnsupportedOperationException();
    }
}
