package io.lodestar.core;

/**
 * A Lodestar Lua script failed inside Redis for a reason that is not bad input or a conflict
 * (e.g. a key of the wrong type written by someone else, or a denied ACL). Keeps Redis' own error as the cause.
 */
public class ScriptException extends LodestarException {
    private static final long serialVersionUID = 1L;
    private final String script;

    /**
     * @param script  the script's name, e.g. {@code "register_instance"}
     * @param message what failed, in Lodestar's terms
     * @param cause   the Redis error
     */
    public ScriptException(String script, String message, Throwable cause) {
        super(message, cause);
        this.script = script;
    }

    /** @return the name of the script that failed */
    public String script() {
        return script;
    }
}
