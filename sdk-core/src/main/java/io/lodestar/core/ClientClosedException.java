package io.lodestar.core;

/**
 * A call on a client after {@link LodestarClient#close()} (or while it closes): nothing was done. A closed client
 * stays closed; create a new one. Not an {@link UnavailableException}, because retrying cannot help.
 */
public class ClientClosedException extends LodestarException {
    private static final long serialVersionUID = 1L;
    private final String namespace;

    /**
     * @param namespace the namespace of the closed client
     * @param where     the redacted Redis address of the closed client
     */
    public ClientClosedException(String namespace, String where) {
        super("The Lodestar client of namespace '" + namespace + "' (Redis at " + where + ") is closed;"
                + " create a new client");
        this.namespace = namespace;
    }

    /** @return the namespace of the closed client */
    public String namespace() {
        return namespace;
    }
}
