package io.lodestar.redis;

/**
 * Decodes the values a read gets back from Redis that Lodestar wrote itself, naming the key when one holds what no
 * Lodestar client writes (another program wrote it): the read then fails with a {@code ScriptException} that says
 * which key, as a write's checks do (checks.lua), never with a parse error from deep inside.
 */
final class Replies {
    private Replies() {
    }

    /**
     * A revision counter: absent (null) is 0. Scripts return it as Redis keeps it, a string (Lua's tonumber turns a
     * corrupt one into nil, which cuts the reply short), or as a number they checked.
     *
     * @throws Corrupt when it is not a non-negative integer
     */
    static long counter(String key, Object value) {
        return number(value, key, " does not hold a revision number");
    }

    /**
     * The revision in the stamp a hash holds in its {@link Keys#REVISION_FIELD} field (a service's instances hash, a
     * config entry's current hash): absent (null) is 0.
     *
     * @throws Corrupt naming the hash and the field, when it is not a non-negative integer
     */
    static long stampRevision(String hash, Object value) {
        return number(value, hash, " field " + Keys.REVISION_FIELD + " does not hold a revision number");
    }

    /**
     * A non-negative integer: absent (null) is 0.
     *
     * @param key  the key it was read from
     * @param what what the message says after the key, e.g. {@code " field version does not hold a number"}
     * @throws Corrupt when it is not a non-negative integer
     */
    static long number(Object value, String key, String what) {
        if (value == null) {
            return 0;
        }
        if (value instanceof Long number && number >= 0) {
            return number;
        }
        if (value instanceof String text && isDigits(text)) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException tooLarge) {
                // reported below
            }
        }
        throw new Corrupt(key + what);
    }

    private static boolean isDigits(String text) {
        if (text.isEmpty()) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** A key that holds what no Lodestar client writes; the message names it (see {@link Errors#translate}). */
    static final class Corrupt extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Corrupt(String message) {
            super(message);
        }

        Corrupt(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
