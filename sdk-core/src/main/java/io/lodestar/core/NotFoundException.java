package io.lodestar.core;

/**
 * What an operation needs does not exist: an instance to renew or update, a config version to roll back to.
 * {@link #kind()} and {@link #id()} say which.
 */
public class NotFoundException extends LodestarException {
    private static final long serialVersionUID = 1L;
    private final String kind;
    private final String id;

    /**
     * @param kind    what was looked for, e.g. {@code "instance"}, {@code "config"}, {@code "config version"}
     * @param id      its identifier, e.g. {@code "orders/orders-1"}
     * @param message the full message with the context
     */
    public NotFoundException(String kind, String id, String message) {
        super(message);
        this.kind = kind;
        this.id = id;
    }

    /** @return what was looked for */
    public String kind() {
        return kind;
    }

    /** @return the identifier that was not found */
    public String id() {
        return id;
    }
}
