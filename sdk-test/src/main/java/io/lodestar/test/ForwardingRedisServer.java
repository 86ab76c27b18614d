package io.lodestar.test;

import java.util.Objects;

/**
 * A {@link RedisServer} that forwards every call to another one; the views and wrappers the kit hands out extend
 * it and override only what they change. {@code close()} is left to each subclass, because whether closing the
 * wrapper stops the server behind it is exactly where they differ.
 */
abstract class ForwardingRedisServer implements RedisServer {

    private final RedisServer delegate;

    ForwardingRedisServer(RedisServer delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public String uri() {
        return delegate.uri();
    }

    @Override
    public String host() {
        return delegate.host();
    }

    @Override
    public int port() {
        return delegate.port();
    }

    @Override
    public String version() {
        return delegate.version();
    }

    @Override
    public boolean isManaged() {
        return delegate.isManaged();
    }

    @Override
    public void kill() {
        delegate.kill();
    }

    @Override
    public void restart() {
        delegate.restart();
    }

    @Override
    public void freeze() {
        delegate.freeze();
    }

    @Override
    public void thaw() {
        delegate.thaw();
    }

    @Override
    public long disconnectClients(String type) {
        return delegate.disconnectClients(type);
    }
}
