package io.lodestar.core;

import io.lodestar.core.model.AppliedConfig;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;

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
}
