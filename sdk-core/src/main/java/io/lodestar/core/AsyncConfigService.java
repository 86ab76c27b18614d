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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The non-blocking twin of {@link ConfigService}'s network operations; failures complete the stage with Lodestar
 * exceptions, on a Lodestar thread (never Redis' I/O thread).
 */
public interface AsyncConfigService {
    /**
     * The current entry from the local view without blocking: completes at once when the view holds it, else when
     * it is loaded (a framework's bootstrap or a reactive request reads it this way).
     *
     * @see ConfigService#get(String)
     */
    CompletionStage<Optional<ConfigEntry>> get(String configId);

    /** @see ConfigService#set(String, String, ConfigFormat) */
    CompletionStage<ConfigEntry> set(String configId, String content, ConfigFormat format);

    /** @see ConfigService#compareAndSet(String, String, ConfigFormat, long) */
    CompletionStage<ConfigEntry> compareAndSet(String configId, String content, ConfigFormat format,
                                               long expectedVersion);

    /** @see ConfigService#remove(String) */
    CompletionStage<Boolean> remove(String configId);

    /** @see ConfigService#compareAndRemove(String, long) */
    default CompletionStage<Void> compareAndRemove(String configId, long expectedVersion) {
        return unsupported("compareAndRemove");
    }

    /** @see ConfigService#list() */
    CompletionStage<Set<String>> list();

    /** @see ConfigService#history(String) */
    CompletionStage<List<ConfigEntry>> history(String configId);

    /** @see ConfigService#getVersion(String, long) */
    CompletionStage<Optional<ConfigEntry>> getVersion(String configId, long version);

    /** @see ConfigService#rollback(String, long) */
    CompletionStage<ConfigEntry> rollback(String configId, long version);

    /** @see ConfigService#applied(String) */
    default CompletionStage<List<AppliedConfig>> applied(String configId) {
        return CompletableFuture.completedFuture(List.of());
    }

    /** @see ConfigService#startGray(String, String, ConfigFormat, GrayRule) */
    default CompletionStage<GrayRelease> startGray(String configId, String content, ConfigFormat format,
                                                   GrayRule rule) {
        return unsupported("startGray");
    }

    /** @see ConfigService#updateGray(String, String, ConfigFormat, GrayRule) */
    default CompletionStage<GrayRelease> updateGray(String configId, String content, ConfigFormat format,
                                                    GrayRule rule) {
        return unsupported("updateGray");
    }

    /** @see ConfigService#promoteGray(String, long) */
    default CompletionStage<ConfigEntry> promoteGray(String configId, long expectedVersion) {
        return unsupported("promoteGray");
    }

    /** @see ConfigService#abortGray(String) */
    default CompletionStage<Boolean> abortGray(String configId) {
        return unsupported("abortGray");
    }

    /** @see ConfigService#gray(String) */
    default CompletionStage<Optional<GrayRelease>> gray(String configId) {
        return unsupported("gray");
    }

    /** @see ConfigService#log(String, int) */
    default CompletionStage<List<ConfigAudit>> log(String configId, int limit) {
        return unsupported("log");
    }

    /**
     * What the gray-release, audit and compare-and-remove methods return in an implementation that has none: they were added after
     * {@code AsyncConfigService} was published, so other implementations still compile.
     */
    private static <T> CompletionStage<T> unsupported(String method) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("AsyncConfigService." + method
                + " is not supported by this implementation"));
    }
}
