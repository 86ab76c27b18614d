package io.lodestar.cli;

import java.util.concurrent.TimeUnit;

/** Stopping a process a test started, with its children (a pseudo-terminal's shell, the JVM under it): bounded. */
final class Processes {
    private Processes() {
    }

    /** Asks politely (SIGTERM), then forces after 20 s; never waits more than 30 s. */
    static void stop(Process process) {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
