package io.lodestar.cli;

/**
 * slf4j-simple, set up before the first logger exists: warnings only (to stderr), or Lodestar's debug output with
 * {@code --verbose}. Lettuce and Netty stay at {@code warn} even then: their debug output shows commands and their
 * arguments, which could hold credentials.
 */
final class Logging {
    private Logging() {
    }

    static void configure(boolean verbose) {
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.showThreadName", "false");
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        System.setProperty("org.slf4j.simpleLogger.log.io.lettuce", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.io.netty", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.io.lodestar", verbose ? "debug" : "warn");
    }
}
