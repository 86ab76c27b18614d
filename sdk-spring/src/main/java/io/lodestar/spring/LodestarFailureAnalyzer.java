package io.lodestar.spring;

import io.lodestar.core.Violation;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import java.util.stream.Collectors;

/** Turns rejected {@code lodestar.*} properties into a start-up report that names each property, value and rule. */
class LodestarFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLodestarPropertiesException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidLodestarPropertiesException cause) {
        String description = cause.violations().stream()
                .map(v -> "  " + v.field() + " must be " + v.rule() + ", but was " + v.value())
                .collect(Collectors.joining("\n", "Invalid Lodestar properties:\n", ""));
        String properties = cause.violations().stream().map(Violation::field).distinct()
                .collect(Collectors.joining(", "));
        return new FailureAnalysis(description,
                "Change " + properties + " in the application's configuration to a value the rule above allows.",
                cause);
    }
}
