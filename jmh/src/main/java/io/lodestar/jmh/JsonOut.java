package io.lodestar.jmh;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Writes the harnesses' results: maps, lists, strings, numbers, booleans and null, indented for diffs. */
final class JsonOut {
    private JsonOut() {
    }

    static String json(Object value, String indent) {
        if (value instanceof Map<?, ?> map) {
            String inner = indent + "  ";
            return map.entrySet().stream()
                    .map(e -> inner + RawRedis.quote(e.getKey().toString()) + ": " + json(e.getValue(), inner))
                    .collect(Collectors.joining(",\n", "{\n", "\n" + indent + "}"));
        }
        if (value instanceof List<?> list) {
            return list.stream().map(v -> json(v, indent)).collect(Collectors.joining(", ", "[", "]"));
        }
        if (value instanceof String text) {
            return RawRedis.quote(text);
        }
        if (value instanceof Double d) {
            return d.isNaN() || d.isInfinite() ? "null" : String.format(Locale.ROOT, "%.1f", d);
        }
        return String.valueOf(value);
    }
}
