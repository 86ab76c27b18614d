package io.lodestar.spring;

import io.lodestar.core.UnavailableException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * A start that failed because Redis could not be reached: says which property to check, and how to start anyway
 * (for a {@code spring.config.import}, how to import without Redis).
 */
class LodestarUnavailableFailureAnalyzer extends AbstractFailureAnalyzer<UnavailableException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnavailableException cause) {
        LodestarConfigImportException importFailure = findCause(rootFailure, LodestarConfigImportException.class);
        if (importFailure != null) {
            return new FailureAnalysis("Lodestar could not read " + importFailure.location()
                    + " (spring.config.import) because Redis could not be reached: " + cause.getMessage(),
                    "Check lodestar.redis-uri and that Redis is running there. To start without it, import it as "
                            + "optional:" + importFailure.location() + " (it then arrives once Redis is back, with "
                            + "Spring Cloud Context), or set lodestar.config-snapshot-directory so that later starts "
                            + "read the last good copy from disk.", cause);
        }
        return new FailureAnalysis("Lodestar could not reach Redis: " + cause.getMessage(),
                "Check lodestar.redis-uri and that Redis is running there. To start while Redis is down and register "
                        + "once it is back, leave lodestar.fail-fast unset (false) and lodestar.startup-mode unset "
                        + "(or offline).", cause);
    }
}
