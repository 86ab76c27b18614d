package io.lodestar.cli;

/**
 * slf4j-simple, set up before the first logger exists: warnings only (to stderr), or Lodestar's debug output with
 * {@code --verbose}. Lettuce and Netty stay at {@code warn} even then: their debug output shows commands and their
 * arguments, which could hold credentials.
 */
final class Logging {
    private Logging() {
    }

    /**
     * @param verbose         Lodestar's debug output too
     * @param longRunning     a command that runs until stopped (watch, console): its lines carry the time of day. A
     *                        one-shot command's do not: it is over within a second, and the date formatter alone
     *                        (slf4j-simple makes it with the first logger) costs 30-50 ms of its start
     */
    static void configure(boolean verbose, boolean longRunning) {
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.showThreadName", "false");
        System.setProperty("org.slf4j.simpleLogger.showDateTime", Boolean.toString(longRunning));
        if (longRunning) {
            System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        }
        System.setProperty("org.slf4j.simpleLogger.log.io.lettuce", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.io.netty", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.io.lodestar", verbose ? "debug" : "warn");
    }
}
