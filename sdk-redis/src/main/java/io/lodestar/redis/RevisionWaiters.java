package io.lodestar.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The read-your-writes waiters of one topic of a {@link SyncedView}: each waits until the topic reflects a
 * revision. Confined to the view thread. A waiter whose wait ends otherwise (its timeout: a revision that never
 * comes, e.g. after Redis restarted and counts from 1 again) leaves through {@link #remove}, so none is kept.
 */
final class RevisionWaiters {
    private final List<Waiter> waiters = new ArrayList<>();

    /** Completes {@code reached} once {@link #release} is called with {@code revision} or more. */
    Waiter add(long revision, CompletableFuture<Void> reached) {
        Waiter waiter = new Waiter(revision, reached);
        waiters.add(waiter);
        return waiter;
    }

    void remove(Waiter waiter) {
        waiters.remove(waiter);
    }

    /** The topic now reflects {@code revision}: completes and forgets every waiter for it or an older one. */
    void release(long revision) {
        if (waiters.isEmpty()) {
            return;
        }
        // completed after the removal: a completion may run code that removes a waiter (an inline view thread)
        List<Waiter> due = new ArrayList<>();
        waiters.removeIf(waiter -> revision >= waiter.revision && due.add(waiter));
        due.forEach(waiter -> waiter.reached.complete(null));
    }

    int size() {
        return waiters.size();
    }

    record Waiter(long revision, CompletableFuture<Void> reached) {
    }
}
