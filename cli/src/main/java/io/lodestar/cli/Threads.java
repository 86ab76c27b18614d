package io.lodestar.cli;

import java.util.concurrent.ThreadFactory;

/** Named daemon threads: the CLI's own threads never keep the JVM up after Ctrl-C. */
final class Threads {
    private Threads() {
    }

    static ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
