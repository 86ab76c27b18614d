package io.lodestar.core;

/** A listener registration; {@link #close()} stops further calls. Closing twice is harmless. */
public interface Subscription extends AutoCloseable {
    /** Stops the listener from being called; events already being delivered may still arrive. */
    @Override
    void close();
}
