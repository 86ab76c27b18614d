package io.lodestar.redis;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Counts reads on a view's read path ({@code lodestar.view.reads}) without a shared atomic write per read: a
 * {@code LongAdder} does a locked compare-and-set on every read, which costs a read at scale a measurable part of
 * its time (it drains the memory operations in flight). Here each thread adds to one of 64 stripes, chosen by its
 * thread id and 128 bytes apart (no false sharing between stripes), with a plain add: no lock, no fence.
 *
 * <p>The count is exact while no two threads that share a stripe add at the same instant; when they do, one of the
 * two adds can be lost. With fewer than 64 busy reading threads that is rare, so the metric stays a faithful rate of
 * reads, a slight undercount at worst (never an overcount). {@link #sum()} is a snapshot (not atomic across
 * stripes), as {@code LongAdder#sum} is.
 *
 * <p>It counts only once {@linkplain #start() started}, when a Micrometer registry publishes the count: until then
 * (no registry bound, or the meter denied by a {@code MeterFilter}) a read costs the read of one flag. The add is
 * a few nanoseconds of a read at scale (where a read is one cache miss, 20-30 ns): measured 3-4 ns out of 30-38
 * in thread CPU time, 10,000 services read in random order (docs/benchmarks/profiles/view-read/).
 */
final class ReadCounter {
    private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int STRIPES_LOG2 = 6;
    /** Longs between two stripes: 128 bytes, two cache lines (the CPU fetches lines in adjacent pairs). */
    private static final int SPACING = 16;

    private final long[] counts = new long[(1 << STRIPES_LOG2) * SPACING];
    /** Whether reads are counted: set once, when the count is published (volatile: a read loop sees it). */
    private volatile boolean counting;

    /** Counts one read, if counting. */
    void increment() {
        if (counting) {
            int at = stripe(Thread.currentThread().getId()) * SPACING;
            // opaque: as cheap as a plain add, but the JIT cannot merge or drop the adds of a read loop
            COUNTS.setOpaque(counts, at, (long) COUNTS.getOpaque(counts, at) + 1);
        }
    }

    /** Counts reads from now on (a registry publishes the count); reads before were not counted. */
    void start() {
        counting = true;
    }

    /** Whether reads are counted. */
    boolean counting() {
        return counting;
    }

    /** Reads counted so far. */
    long sum() {
        long sum = 0;
        for (int at = 0; at < counts.length; at += SPACING) {
            sum += (long) COUNTS.getVolatile(counts, at);
        }
        return sum;
    }

    /** Fibonacci hashing of the thread id: consecutive ids (threads started together) get distinct stripes. */
    static int stripe(long threadId) {
        return (int) ((threadId * 0x9E3779B97F4A7C15L) >>> (64 - STRIPES_LOG2));
    }
}
