package io.lodestar.spring;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarException;
import io.lodestar.core.Violation;

import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * Lodestar properties that the core rejected, with each violation named by its property (the core names fields in
 * Java case), so that {@link LodestarFailureAnalyzer} can tell which line of the configuration to fix.
 */
final class InvalidLodestarPropertiesException extends LodestarException {
    private static final long serialVersionUID = 1L;
    private final transient List<Violation> violations;

    private InvalidLodestarPropertiesException(List<Violation> violations, InvalidArgumentException cause) {
        super(violations.stream().map(Violation::message).collect(Collectors.joining("; ")), cause);
        this.violations = violations;
    }

    /**
     * @param prefix the property prefix of the object the core validated, e.g. {@code lodestar.registration}
     * @param cause  what the core threw
     * @return the same violations, with property names as fields
     */
    static InvalidLodestarPropertiesException of(String prefix, InvalidArgumentException cause) {
        return renamed(cause, field -> prefix + "." + kebab(field));
    }

    /**
     * @param prefix the property prefix of settings whose violations name properties already, e.g.
     *               {@code lodestar.loadbalancer} ({@link io.lodestar.loadbalancer.LoadBalancerSettings})
     * @param cause  what the settings threw
     * @return the same violations, each field under the prefix
     */
    static InvalidLodestarPropertiesException ofProperties(String prefix, InvalidArgumentException cause) {
        return renamed(cause, field -> prefix + "." + field);
    }

    private static InvalidLodestarPropertiesException renamed(InvalidArgumentException cause,
                                                              UnaryOperator<String> property) {
        List<Violation> renamed = cause.violations().stream()
                .map(v -> new Violation(property.apply(v.field()), v.value(), v.rule()))
                .toList();
        return new InvalidLodestarPropertiesException(renamed, cause);
    }

    /** @return the broken rules, each field a property name */
    List<Violation> violations() {
        return violations;
    }

    /** {@code commandTimeout} to {@code command-timeout}; {@code metadata[Zone]} to {@code metadata.Zone}. */
    private static String kebab(String field) {
        int bracket = field.indexOf('[');
        String name = bracket < 0 ? field : field.substring(0, bracket);
        StringBuilder out = new StringBuilder(field.length() + 4);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            out.append(Character.isUpperCase(c) ? "-" + Character.toLowerCase(c) : String.valueOf(c));
        }
        if (bracket >= 0) { // a list index stays as it is, a map key is a property path segment
            String key = field.substring(bracket + 1, field.length() - 1);
            out.append(key.chars().allMatch(Character::isDigit) ? "[" + key + "]" : "." + key);
        }
        return out.toString();
    }
}
