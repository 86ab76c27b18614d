package io.lodestar.redis;

import io.lodestar.core.ScriptException;
import io.lodestar.core.internal.Validation;

import java.util.List;

/**
 * Reads a write script's reply defensively: a reply of another shape (a Lua nil ends a reply early, e.g. a value
 * another program's data left unset) fails as a {@link ScriptException} naming the script and the reply, never as a
 * ClassCastException or an index out of bounds.
 */
final class Reply {
    private Reply() {
    }

    /** The integer at {@code index}. */
    static long number(List<Object> reply, int index, LuaScript script) {
        if (reply != null && index < reply.size() && reply.get(index) instanceof Long value) {
            return value;
        }
        throw unexpected(reply, index, "an integer", script);
    }

    /** The string at {@code index}, or null when the reply has nothing there (Lua's nil ends a reply). */
    static String textOrNull(List<Object> reply, int index, LuaScript script) {
        if (reply == null || index >= reply.size() || reply.get(index) == null) {
            return null;
        }
        if (reply.get(index) instanceof String value) {
            return value;
        }
        throw unexpected(reply, index, "a string", script);
    }

    /** The string at {@code index}. */
    static String text(List<Object> reply, int index, LuaScript script) {
        String value = textOrNull(reply, index, script);
        if (value == null) {
            throw unexpected(reply, index, "a string", script);
        }
        return value;
    }

    private static ScriptException unexpected(List<Object> reply, int index, String expected, LuaScript script) {
        return new ScriptException(script.name(), script.name() + " answered " + Validation.show(String.valueOf(reply))
                + ", where element " + index + " must be " + expected, null);
    }
}
