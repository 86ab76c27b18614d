package io.lodestar.cli;

import io.lodestar.core.internal.Validation;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One page of a console list ({@code offset} and {@code limit} from the query), answered with the list's total, so a
 * page of a service with thousands of instances carries only the rows it shows. A query without either gets the
 * whole list, as before paging, so older pages and scripts keep working.
 *
 * @param offset the first row, from 0; past the end: an empty page (the list shrank meanwhile), not an error
 * @param limit  the most rows, 1 to {@link #MAX_LIMIT}
 */
record Paging(int offset, int limit) {
    /** The most rows one answer carries: a page, not the list again. */
    static final int MAX_LIMIT = 500;
    /** The rows of a page when the query gives an offset only. */
    static final int DEFAULT_LIMIT = 50;

    /**
     * @return the page the query asks for, or null when it names neither {@code offset} nor {@code limit}
     * @throws IllegalArgumentException (a 400) naming the parameter, its value and the rule
     */
    static Paging of(Map<String, String> query) {
        if (!query.containsKey("offset") && !query.containsKey("limit")) {
            return null;
        }
        return new Paging(number(query, "offset", 0, Integer.MAX_VALUE, 0),
                number(query, "limit", 1, MAX_LIMIT, DEFAULT_LIMIT));
    }

    private static int number(Map<String, String> query, String name, int min, int max, int absent) {
        String given = query.get(name);
        if (given == null) {
            return absent;
        }
        String rule = max == Integer.MAX_VALUE ? "a whole number from " + min : "a whole number from " + min + " to "
                + max;
        try {
            int value = Integer.parseInt(given);
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // the same message as a number out of range
        }
        throw new IllegalArgumentException(name + " must be " + rule + ", but was " + Validation.show(given));
    }

    /** {@code {"total", "offset", "limit", "items"}}: this page's rows of {@code rows}. */
    Map<String, Object> page(List<?> rows) {
        Map<String, Object> page = new LinkedHashMap<>();
        page.put("total", rows.size());
        page.put("offset", offset);
        page.put("limit", limit);
        int from = Math.min(offset, rows.size());
        page.put("items", rows.subList(from, (int) Math.min((long) from + limit, rows.size())));
        return page;
    }
}
