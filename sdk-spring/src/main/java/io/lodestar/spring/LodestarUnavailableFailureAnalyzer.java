package io.lodestar.spring;

import io.lodestar.core.UnavailableException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** A start that failed because Redis could not be reached: says which property to check, and how to start anyway. */
class LodestarUnavailableFailureAnalyzer extends AbstractFailureAnalyzer<UnavailableException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnavailableException cause) {
        return new FailureAnalysis("Lodestar could not reach Redis: " + cause.getMessage(),
                "Check lodestar.redis-uri and that Redis is running there. To start while Redis is down and connect "
                        + "in the background, set lodestar.startup-mode=offline.", cause);
    }
}
