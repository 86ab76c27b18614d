package io.lodestar.cli;

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
     * Escapes the backslash and every character that moves or hides text: control characters (line breaks, the
     * carriage return, the escape of terminal sequences), Unicode line and paragraph separators, and format
     * characters (bidirectional overrides that make text read in another order).
     */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            int type = Character.getType(c);
            if (c == '\\') {
                out.append("\\\\");
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == '\t') {
                out.append("\\t");
            } else if (type == Character.CONTROL || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                    || type == Character.PARAGRAPH_SEPARATOR) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }
}
