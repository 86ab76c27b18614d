package io.lodestar.core;

import io.lodestar.core.internal.Validation;

import org.jspecify.annotations.Nullable;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How current a local view is. A view is stale while it cannot hear from Redis: it keeps serving the last known
 * data, and says so here.
 *
 * @param stale            true while the view is disconnected from Redis (or has not loaded yet)
 * @param staleFor         how long it has been stale ({@link Duration#ZERO} when not stale)
 * @param lastSyncAt       when the view last heard from Redis (a load, an event or a reconcile); null if never
 * @param restoredFromDisk true when some data was served from the local snapshot directory because Redis
 *                         could not be reached at startup
 * @param staleReason      why the view is stale, for people (null when it is not): a lost connection, or Redis
 *                         having lost data the view keeps serving until its owners write it again (see
 *                         docs/redis.md, "When Redis loses its data")
 */
public record ViewStatus(boolean stale, Duration staleFor, @Nullable Instant lastSyncAt, boolean restoredFromDisk,
                         @Nullable String staleReason) {
    /**
     * @throws InvalidArgumentException when {@code staleFor} is null
     */
    public ViewStatus {
        Validation.requireNonNull("staleFor", staleFor);
    }

    /** A status without a reason (see {@link #staleReason()}). */
    public ViewStatus(boolean stale, Duration staleFor, @Nullable Instant lastSyncAt, boolean restoredFromDisk) {
        this(stale, staleFor, lastSyncAt, restoredFromDisk, null);
    }

    /** This status as plain values for a health endpoint's JSON (see {@link ClientHealth#details()}). */
    Map<String, Object> details() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("stale", stale);
        details.put("staleFor", staleFor.toString());
        ClientHealth.putTime(details, "lastSyncAt", lastSyncAt);
        details.put("restoredFromDisk", restoredFromDisk);
        if (staleReason != null) {
            details.put("staleReason", staleReason);
        }
        return details;
    }
}
