package io.lodestar.redis;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The read path's table of values by id: open addressing, keys and values side by side in one array, so a read is
 * the key's slot and the value next to it, with no node object between the table and the value (at scale every
 * object a read goes through is a cache miss; a {@code ConcurrentHashMap} node was one). Reads are lock-free and
 * allocate nothing; writes are serialized by this object's lock.
 *
 * <p>A slot never changes key once it has one: a removal clears the value only (the key stays, dead, and the id
 * takes its slot again if it comes back), so a reader that found its key reads that key's value or null, never
 * another key's. The table grows (or drops its dead keys) by rehashing into a new table, published through a
 * volatile field; the old one is not written after that, so a reader still probing it answers as of the switch.
 * At most half the slots hold a key, so a probe always ends on an empty slot.
 *
 * @param <V> the value
 */
final class ReadTable<V> {
    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final int MIN_CAPACITY_LOG2 = 4;

    /** Keys and values: {@code slots[2i]} a key, {@code slots[2i + 1]} its value; {@code hashes[i]} the key's hash. */
    private static final class Table {
        final Object[] slots;
        final int[] hashes;
        final int shift;
        final int mask;

        Table(int capacityLog2) {
            slots = new Object[2 << capacityLog2];
            hashes = new int[1 << capacityLog2];
            shift = 32 - capacityLog2;
            mask = (1 << capacityLog2) - 1;
        }

        int home(int hash) {
            return (hash * 0x9E3779B9) >>> shift; // Fibonacci hashing: the high bits of the product
        }
    }

    private volatile Table table = new Table(MIN_CAPACITY_LOG2);
    private int keys; // slots with a key, live or dead (under this lock)
    private int live; // slots with a value (under this lock)

    /** The value of the id, or null. No lock, no allocation. */
    @SuppressWarnings("unchecked")
    V get(String id) {
        Table t = table;
        int hash = id.hashCode();
        for (int i = t.home(hash); ; i = (i + 1) & t.mask) {
            Object key = SLOTS.getAcquire(t.slots, i << 1);
            if (key == null) {
                return null;
            }
            if (key == id || t.hashes[i] == hash && key.equals(id)) {
                return (V) SLOTS.getAcquire(t.slots, (i << 1) + 1);
            }
        }
    }

    /** Sets the id's value; null removes it. */
    synchronized void put(String id, V value) {
        Table t = table;
        int hash = id.hashCode();
        int i = slot(t, id, hash);
        if (t.slots[i << 1] == null) { // a new key
            if (value == null) {
                return;
            }
            if (2 * (keys + 1) > t.hashes.length) {
                t = rehash(live + 1);
                i = slot(t, id, hash);
            }
            t.hashes[i] = hash;
            t.slots[(i << 1) + 1] = value;
            SLOTS.setRelease(t.slots, i << 1, id); // after its hash and value: a reader that sees the key sees them
            keys++;
            live++;
            return;
        }
        Object held = t.slots[(i << 1) + 1];
        live += (value != null ? 1 : 0) - (held != null ? 1 : 0);
        SLOTS.setRelease(t.slots, (i << 1) + 1, value);
    }

    /** Removes every value. */
    synchronized void clear() {
        table = new Table(MIN_CAPACITY_LOG2);
        keys = 0;
        live = 0;
    }

    /** Values held (tests). */
    synchronized int size() {
        return live;
    }

    /** Slots of the current table (tests). */
    int capacity() {
        return table.hashes.length;
    }

    /** The id's slot, or the empty slot where it would go. */
    private static int slot(Table t, String id, int hash) {
        for (int i = t.home(hash); ; i = (i + 1) & t.mask) {
            Object key = t.slots[i << 1];
            if (key == null || key == id || t.hashes[i] == hash && key.equals(id)) {
                return i;
            }
        }
    }

    /**
     * A new table for this many values (at most a third full: a sixth of its slots at least are free before the
     * next rehash, so rehashes cost O(1) per new key), with the live values and no dead keys.
     */
    private Table rehash(int values) {
        int log2 = Math.max(MIN_CAPACITY_LOG2, 32 - Integer.numberOfLeadingZeros(3 * values - 1));
        Table old = table;
        Table grown = new Table(log2);
        for (int i = 0; i < old.hashes.length; i++) {
            Object key = old.slots[i << 1];
            Object value = old.slots[(i << 1) + 1];
            if (key != null && value != null) {
                int at = slot(grown, (String) key, old.hashes[i]);
                grown.hashes[at] = old.hashes[i];
                grown.slots[at << 1] = key;
                grown.slots[(at << 1) + 1] = value;
            }
        }
        keys = live;
        table = grown; // volatile: readers see the filled table
        return grown;
    }
}
