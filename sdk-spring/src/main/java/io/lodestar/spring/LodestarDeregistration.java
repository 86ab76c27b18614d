package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.SmartLifecycle;

/**
 * The second phase of a graceful shutdown: deregisters the client's instances once requests in flight have
 * finished (the web server's graceful shutdown has a later phase, so it stops first). Consumers stopped choosing
 * them before the port closed: {@link LodestarAutoRegistration} took them out of service before that shutdown began.
 */
class LodestarDeregistration implements SmartLifecycle {
    static final int PHASE = WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE - 512;

    private final LodestarClient lodestar;
    private volatile boolean running;

    LodestarDeregistration(LodestarClient lodestar) {
        this.lodestar = lodestar;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        lodestar.deregisterAll();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
