package io.lodestar.redis;

import io.lodestar.redis.SyncedView.Versioned;
import io.lodestar.redis.ViewSource.Message;
import io.lodestar.redis.internal.view.ChannelRouter;
import io.lodestar.redis.internal.time.Clock;
import io.lodestar.redis.internal.view.Inbox;
import io.lodestar.redis.internal.view.Kept;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * The state of one topic of a {@link SyncedView}: its value, its listeners, and where its sync stands. The view's
 * state machine reads and writes the fields (on the view thread, unless a field says otherwise); this class answers
 * the parts that call on a topic (the {@link ChannelRouter}, the {@link Inbox}, each {@link ViewListener}) by
 * handing over to its view.
 *
 * @param <V> the value of the topic (immutable)
 * @param <E> the event listeners get
 */
final class ViewTopic<V, E> extends TopicTable.Entry implements ViewListener.Topic<V, E>, ChannelRouter.Route,
        Inbox.Receiver<Message> {
    final List<ViewListener<V, E>> listeners = new CopyOnWriteArrayList<>();
    /** Written on the view thread only (through {@link #hold}), read anywhere. */
    volatile Versioned<V> current;
    // view thread only:
    boolean syncing;
    CompletableFuture<Versioned<V>> attempt = new CompletableFuture<>();
    final List<Message> buffer = new ArrayList<>();
    /** Events handed over by the I/O thread, waiting for the view thread to apply them (any thread). */
    final Inbox.Mailbox<Message> mailbox;
    /** How many of {@link #buffer} were heard before the current load started. */
    int heardBeforeLoad;
    /**
     * Sync once more when the current sync ends: its load buffer overflowed, or its subscription was renewed
     * while it was under way (either way it may have missed events).
     */
    boolean syncAgain;
    final RevisionWaiters waiters = new RevisionWaiters();
    int failures;
    /**
     * Set when the held value proved to be one Redis never had (a forged event), or was restored from a local
     * copy Redis may no longer hold ({@link ViewSource#restore}): the next sync loads whole.
     */
    boolean untrusted;
    /** Whether the held value was restored from a local copy: a first load from Redis replaces it whole. */
    boolean restored;
    /** What it keeps serving after Redis lost its data (null: nothing), and the timer of the next item due. */
    Kept kept;
    Clock.Scheduled keptTimer;
    /** Whether it counts in the view's staleness: it keeps items that wait for their owners. */
    boolean keptStale;
    /** The disconnect count when its last successful load started; -1 while it has none from Redis. */
    long loadedEpoch = -1;
    /** Its {@link ViewSource#group}: null when the source loads one topic at a time. */
    final Object group;
    /** Preloads waiting for this topic's batch to start (null: none). */
    List<CompletableFuture<Versioned<V>>> waiting;
    /** Queued for a batch by a preload only: nothing to do if it holds a value when its turn comes. */
    boolean queuedLoadOnly;
    /**
     * A {@linkplain SyncedView#release release} asked for while its first load was under way: which values it does
     * not need, decided when that load ends (null: none asked for).
     */
    Predicate<V> releaseWhenLoaded;

    private final SyncedView<V, E> view;

    ViewTopic(String id, SyncedView<V, E> view) {
        super(id, view.source().channel(id));
        this.view = view;
        this.group = view.source().group(id);
        this.mailbox = view.mailbox(this);
    }

    /** A PubSub message of its channel (Redis' I/O thread): read by the view's source, then handed over. */
    @Override
    public void offer(String message) {
        view.events().offer(this, view.source().read(message));
    }

    @Override
    public void resubscribed() {
        view.resubscribed(this);
    }

    @Override
    public void onMessages(List<Message> messages) {
        view.events().onMessages(this, messages);
    }

    /** Events were dropped for the view's inbox bound (view thread): re-read instead. */
    @Override
    public void onInboxOverflow() {
        view.inboxOverflowed(this);
    }

    /**
     * Holds a new value (view thread): publishes it to the read path first (if the topic is still live, see
     * {@link TopicTable}), then writes {@link #current}, so whoever sees a revision there (read-your-writes waits
     * on it) then reads that revision's value, or a newer one.
     */
    void hold(Versioned<V> held) {
        view.publish(this, held.value());
        current = held;
        restored = false;
        view.source().held(id, held);
    }

    /** Holds a value restored from a local copy ({@link ViewSource#restore}): not saved back. */
    void holdRestored(Versioned<V> value) {
        view.publish(this, value.value());
        current = value;
        restored = true;
    }

    @Override
    boolean pinned() {
        return !listeners.isEmpty();
    }

    /** Not while it loads its first value: a read waits for it. */
    @Override
    boolean droppable() {
        return !pinned() && current != null;
    }

    /** Starts the listeners that waited for the first value (view thread). */
    void startListeners() {
        for (ViewListener<V, E> listener : listeners) {
            if (!listener.started()) {
                listener.start(current);
            }
        }
    }

    @Override
    public void onViewThread(Runnable task) {
        view.onViewThread(task);
    }

    @Override
    public boolean follows(ViewListener<V, E> listener) {
        return !view.isClosed() && listeners.contains(listener);
    }

    @Override
    public Versioned<V> current() {
        return current;
    }

    @Override
    public E resynced(Versioned<V> before, Versioned<V> after) {
        return view.source().resynced(id, before, after);
    }

    @Override
    public void overflowed() {
        view.overflows.increment();
    }

    @Override
    public String describe() {
        return view.name() + " '" + id + "'";
    }

    void releaseWaiters() {
        Versioned<V> now = current;
        if (now != null) {
            waiters.release(now.revision());
        }
    }
}
