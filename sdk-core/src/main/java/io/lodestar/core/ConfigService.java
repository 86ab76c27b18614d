package io.lodestar.core;

import io.lodestar.core.model.AppliedConfig;
import io.lodestar.core.model.ConfigAudit;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.GrayRelease;
import io.lodestar.core.model.GrayRule;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * Versioned configuration entries. Reads come from a local view kept current by PubSub; writes are atomic Redis
 * scripts that bump the entry's version, keep a bounded history and announce the change.
 *
 * <p>All methods throw {@link InvalidArgumentException} for bad input and {@link UnavailableException} when Redis
 * is needed and cannot be reached.
 */
public interface ConfigService extends ConfigReader {
    /**
     * @param configId the config id
     * @return the current entry, if any (from the local view; the first read of an id loads it)
     */
    @Override
    Optional<ConfigEntry> get(String configId);

    /**
     * Sets the content. Setting the same content and format again is a no-op: no new version, no event.
     *
     * @param configId the config id
     * @param content  the content
     * @param format   the format hint
     * @return the current entry after the call
     */
    ConfigEntry set(String configId, String content, ConfigFormat format);

    /**
     * Sets the content only if the current version is {@code expectedVersion} (0 = only if absent).
     *
     * @param configId        the config id
     * @param content         the content
     * @param format          the format hint
     * @param expectedVersion the version the caller last read
     * @return the current entry after the call
     * @throws ConflictException when the current version is another one; it carries that version
     */
    ConfigEntry compareAndSet(String configId, String content, ConfigFormat format, long expectedVersion);

    /**
     * Removes the entry; its history stays, so it can be rolled back.
     *
     * @param configId the config id
     * @return true if it existed
     */
    boolean remove(String configId);

    /**
     * Removes the entry only if its current version is {@code expectedVersion} (its history stays, as with
     * {@link #remove}): the check and the remove are one atomic step, so a write in between is never lost.
     *
     * @param configId        the config id
     * @param expectedVersion the version the caller last read, at least 1
     * @throws ConflictException when the current version is another one (or there is no current entry: version 0);
     *     it carries that version, and nothing is removed
     * @throws UnsupportedOperationException from an implementation that predates it
     */
    default void compareAndRemove(String configId, long expectedVersion) {
        throw unsupported("compareAndRemove");
    }

    /**
     * An operator action: removes what a {@linkplain #remove removed} config left in Redis (its history and its
     * version counter), so that configs that are gone for good do not accumulate keys. Purged versions cannot be
     * rolled back to; if the config is set again later, it starts over at version 1 (views notice the new
     * incarnation and re-read it).
     *
     * @param configId the config id
     * @return true if something was removed, false if the config left nothing behind
     * @throws ConflictException when the config exists (remove it first); {@link ConflictException#id()} is the
     *     config, {@link ConflictException#currentVersion()} its current version. Nothing is removed then.
     */
    boolean purge(String configId);

    /** @return the ids of the entries that currently exist in the namespace (read from Redis) */
    Set<String> list();

    /**
     * @param configId the config id
     * @return the kept versions, newest first (bounded by the configured history limit)
     */
    List<ConfigEntry> history(String configId);

    /**
     * @param configId the config id
     * @param version  a version number
     * @return that version, if still kept in history
     */
    Optional<ConfigEntry> getVersion(String configId, long version);

    /**
     * Makes an older version's content current again, as a new version. Works after a remove.
     *
     * @param configId the config id
     * @param version  the version to restore
     * @return the new current entry
     * @throws NotFoundException when that version is not (or no longer) in history
     */
    ConfigEntry rollback(String configId, long version);

    /**
     * Who runs what: the live clients that applied the config, with the version (and variant) each applied and
     * when, read from Redis. Every client records the version its view takes (when it loads the config or hears of
     * a new version) under the config's own keys, renews the record every {@link LodestarOptions#sweepInterval()}
     * while it holds the config, and removes it when it drops the config or closes; a record lives three sweep
     * intervals unless renewed, so a client that crashed or lost Redis disappears within that.
     *
     * <p>A default method so that implementations written before it still compile; one that keeps no records
     * answers with an empty list.
     *
     * @param configId the config id
     * @return the live records, highest version first, then by client
     * @throws InvalidArgumentException when the id breaks its rule
     */
    default List<AppliedConfig> applied(String configId) {
        return List.of();
    }

    /**
     * Starts a gray release: the instances {@code rule} selects get {@code content} instead of the current version
     * (through {@link #get} and the listeners), every other instance keeps the current version. Each client decides
     * locally from its identity (the instance it registered, or {@code LodestarOptions.Builder.identity}).
     *
     * @return the release
     * @throws NotFoundException when the config does not exist
     * @throws ConflictException when the config already has a gray release (update, promote or abort it)
     * @throws InvalidArgumentException naming an invalid id, content, format or rule
     */
    default GrayRelease startGray(String configId, String content, ConfigFormat format, GrayRule rule) {
        throw unsupported("startGray");
    }

    /**
     * Replaces the content, format and rule of the running gray release; its salt stays, so a larger percentage
     * only adds instances.
     *
     * @return the release after the update (its revision one higher, or the same when nothing changed)
     * @throws NotFoundException when the config has no gray release
     */
    default GrayRelease updateGray(String configId, String content, ConfigFormat format, GrayRule rule) {
        throw unsupported("updateGray");
    }

    /**
     * Promotes the gray release: its content and format become the config's next version and the release ends,
     * in one script, only if the current version is still {@code expectedVersion} (compare-and-set; -1 = whatever
     * it is).
     *
     * @return the new current entry
     * @throws NotFoundException when the config has no gray release
     * @throws ConflictException when the current version is not {@code expectedVersion}
     */
    default ConfigEntry promoteGray(String configId, long expectedVersion) {
        throw unsupported("promoteGray");
    }

    /**
     * Ends the gray release without changing the config: gray instances get the current version again.
     *
     * @return whether there was a release to end
     */
    default boolean abortGray(String configId) {
        throw unsupported("abortGray");
    }

    /** @return the config's running gray release, read from Redis */
    default Optional<GrayRelease> gray(String configId) {
        throw unsupported("gray");
    }

    /**
     * The config's audit trail, newest first: every write (set, compare-and-set, rollback, remove and the
     * gray operations) with the client that made it. Kept per config in Redis, the newest 1000 or a few more
     * (Redis trims a stream in whole blocks).
     *
     * @param limit at most this many records (1-10000)
     * @return the records, newest first
     */
    default List<ConfigAudit> log(String configId, int limit) {
        throw unsupported("log");
    }

    /**
     * Listens to one config. Returns once the listener is attached to the loaded entry (bounded by the command
     * timeout; at once while Redis cannot be reached, and the listener starts when it can), so every version
     * written after the call reaches it. Versions missed on the way (a lost message, a reconnect) are replayed from
     * history; only versions already trimmed from history are skipped, and then the listener gets the current
     * state.
     *
     * @param configId the config id
     * @param listener called once per version, in order, on a Lodestar thread
     * @return the subscription; close it to stop
     */
    Subscription subscribe(String configId, ConfigListener listener);

    /**
     * Like {@link #subscribe(String, ConfigListener)}; with {@link Initial#DELIVER} the listener first gets the
     * current entry as a {@link io.lodestar.core.event.ConfigChanged} (nothing when the config does not exist),
     * then every later version exactly once, in order: one call gives both the value and its changes, as Nacos'
     * {@code getConfigAndSignListener}.
     *
     * @param configId the config id
     * @param listener called once per version, in order, on a Lodestar thread
     * @param initial  whether to deliver the current entry first
     * @return the subscription; close it to stop
     */
    Subscription subscribe(String configId, ConfigListener listener, Initial initial);

    /**
     * Like {@link #subscribe(String, ConfigListener, Initial)}, calling the listener on the given executor (still
     * one event at a time, in order) instead of a Lodestar thread.
     *
     * @param configId the config id
     * @param listener the listener
     * @param initial  whether to deliver the current entry first
     * @param executor where the listener runs
     * @return the subscription; close it to stop
     */
    Subscription subscribe(String configId, ConfigListener listener, Initial initial, Executor executor);

    /**
     * Listens to every config of the namespace, with the guarantees of {@link #subscribe} per config. A config
     * created later is followed from the state it has when the listener learns of it (normally its first version),
     * delivered as a {@link io.lodestar.core.event.ConfigChanged}. The listener is never called concurrently.
     *
     * @param listener called for every change of every config of the namespace
     * @return the subscription; close it to stop
     */
    Subscription subscribeAll(ConfigListener listener);

    /** @return how current the local config view is */
    ViewStatus status();

    /** @return the same operations, non-blocking */
    AsyncConfigService async();

    /**
     * What the gray-release and audit methods throw in an implementation that has none: they were added after
     * {@code ConfigService} was published, so other implementations still compile. Lodestar's own implements them.
     */
    private static UnsupportedOperationException unsupported(String method) {
        return new UnsupportedOperationException("ConfigService." + method + " is not supported by this implementation");
    }
}
