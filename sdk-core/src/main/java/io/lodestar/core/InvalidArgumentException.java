package io.lodestar.core;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Bad input: an id, a port, a weight, a setting... The message names every broken rule as
 * {@code "<field> must be <rule>, but was <value>"}; {@link #violations()} gives them as data.
 */
public class InvalidArgumentException extends LodestarException {
    private static final long serialVersionUID = 1L;
    private final transient List<Violation> violations;

    /** @param violations the broken rules, at least one */
    public InvalidArgumentException(List<Violation> violations) {
        super(describe(violations));
        this.violations = List.copyOf(violations);
    }

    /** @param violation the broken rule */
    public InvalidArgumentException(Violation violation) {
        this(List.of(violation));
    }

    /** @return the broken rules, in the order they were checked */
    public List<Violation> violations() {
        return violations;
    }

    private static String describe(List<Violation> violations) {
        if (violations.isEmpty()) {
            throw new IllegalArgumentException("an InvalidArgumentException needs at least one violation");
        }
        return violations.stream().map(Violation::message).collect(Collectors.joining("; "));
    }
}
