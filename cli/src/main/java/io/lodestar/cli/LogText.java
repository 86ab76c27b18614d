package io.lodestar.cli;

import io.lodestar.core.internal.Validation;

import java.util.regex.Pattern;

/**
 * Text from a request made safe for a log line: nothing it holds can end the line, start another (a forged
 * {@code AUDIT} line) or pass for the next field.
 */
final class LogText {
    private static final Pattern PLAIN = Pattern.compile("[\\p{Alnum}._/@:+-]+");

    private LogText() {
    }

    /**
     * A field's value: as it is when it has only letters, digits and {@code ._/@:+-}; else quoted, with {@code "}
     * and everything {@link #escape} escapes escaped, so a space or {@code =} in it cannot start another field.
     */
    static String field(String value) {
        if (PLAIN.matcher(value).matches()) {
            return value;
        }
        return '"' + escape(value).replace("\"", "\\\"") + '"';
    }

    /**
     * Escapes the backslash and every character that moves or hides text (line breaks, control and format
     * characters, bidirectional overrides, invisible and separator characters): the same escape as every message
     * that quotes a rejected value ({@link Validation#escaped}).
     */
    static String escape(String text) {
        return Validation.escaped(text);
    }
}
