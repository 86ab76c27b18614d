package io.lodestar.redis;

import java.util.concurrent.TimeUnit;

/**
 * What one client saw of Redis being unreachable and has not yet noted in its namespace's outage list (see
 * elect_sweeper.lua): when that outage began, as this client saw it first, and when the client last saw it going on.
 * Only what is an outage counts: a lease's renewal that could not reach Redis, and a lost connection whose reconnect
 * failed. A connection dropped while Redis stays reachable (a PubSub connection cut off, a short reconnect) is none:
 * it cannot have kept an owner from renewing.
 */
final class OutageEvidence {
    /** An outage to note: it began {@code agoMillis} ago, as of {@code takenNanos}. */
    record Note(long agoMillis, long takenNanos) {
    }

    private boolean open;
    private long sinceNanos;
    private long lastNanos;

    /** Redis could not be reached, since {@code sinceNanos} ({@link System#nanoTime()}) at the latest. */
    synchronized void seen(long sinceNanos) {
        if (!open || sinceNanos - this.sinceNanos < 0) {
            this.sinceNanos = sinceNanos;
        }
        open = true;
        lastNanos = System.nanoTime();
    }

    /** The outage to note now, or null when this client saw none since it last noted one. */
    synchronized Note toNote() {
        if (!open) {
            return null;
        }
        long now = System.nanoTime();
        return new Note(Math.max(0, TimeUnit.NANOSECONDS.toMillis(now - sinceNanos)), now);
    }

    /**
     * The namespace has the note: the outage is over unless evidence of it came after the note was taken (it still
     * goes on: the next note extends it, from the same beginning).
     */
    synchronized void noted(Note note) {
        if (open && lastNanos - note.takenNanos() < 0) {
            open = false;
        }
    }
}
