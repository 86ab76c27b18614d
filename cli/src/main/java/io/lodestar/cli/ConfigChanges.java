package io.lodestar.cli;

import io.lodestar.core.ConfigService;
import io.lodestar.core.model.ConfigAudit;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A namespace's recent config changes for the console, from the audit trail every write appends in Redis (one
 * bounded stream per config): so they outlive the console, and show writes by every tool and application, not only
 * the console's own. The streams are read in parallel, one short read per config that exists, and merged.
 */
final class ConfigChanges {
    /** The most changes the namespace view shows (and reads from each config's stream). */
    static final int RECENT = 50;

    private ConfigChanges() {
    }

    /** The newest {@link #RECENT} records of the configs that exist now, newest first, each with its config id. */
    static List<Map<String, Object>> recent(ConfigService config) {
        List<CompletableFuture<List<ConfigAudit>>> reads = config.list().stream()
                .map(id -> config.async().log(id, RECENT).toCompletableFuture()).toList();
        try {
            return reads.stream().flatMap(read -> read.join().stream())
                    .sorted(Comparator.comparing(ConfigAudit::at).thenComparing(ConfigAudit::version).reversed())
                    .limit(RECENT).map(ConfigChanges::view).toList();
        } catch (CompletionException e) {
            // the SDK's own exception (unavailable, timeout), which the console maps to a status
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    /** A record as {@code lodestar config log -o json} shows it, with its config id. */
    static Map<String, Object> view(ConfigAudit record) {
        Map<String, Object> row = ConfigLogCommand.view(record);
        row.put("id", record.configId());
        return row;
    }
}
