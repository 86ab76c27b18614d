package io.lodestar.core;

import io.lodestar.core.internal.Validation;

import java.util.Objects;

/**
 * One broken input rule: which field, the value it had and the rule it breaks.
 *
 * <p>The field and the value are kept printable: a character that would not show as itself (a control, a
 * right-to-left override, a zero-width space...) is escaped as {@code Validation.show} escapes it, so a message can
 * never read differently than it is, whoever built the violation.
 *
 * @param field the name of the argument or setting, e.g. {@code "port"} or {@code "metadata[zone]"}
 * @param value the offending value as text ({@code "null"} for null), already shortened and free of secrets
 * @param rule  what the value must be, e.g. {@code "between 1 and 65535"}
 */
public record Violation(String field, String value, String rule) {
    /** Creates a violation; all parts are required. */
    public Violation {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(rule, "rule");
        field = Validation.printable(field);
        value = Validation.printable(value);
    }

    /** @return {@code "<field> must be <rule>, but was <value>"} */
    public String message() {
        return field + " must be " + rule + ", but was " + value;
    }

    @Override
    public String toString() {
        return message();
    }
}
