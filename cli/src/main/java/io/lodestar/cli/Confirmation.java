package io.lodestar.cli;

import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * The confirmation a destructive command asks for ({@code --yes}, as a picocli mixin): on a terminal it asks and
 * waits for "y"; elsewhere (a script, a pipe, a CI job) nobody could answer, so without {@code --yes} it refuses
 * with a usage error instead of hanging or going ahead.
 */
final class Confirmation {
    @Option(names = {"-y", "--yes"}, description = "do it without asking (needed when not on a terminal)")
    boolean yes;

    /**
     * Returns when the action is confirmed.
     *
     * @param action what will be done, for the question, e.g. {@code deregister orders/db-1 in namespace prod}
     * @throws ExitCodes.UsageException when it is not confirmed (declined, or no terminal and no {@code --yes})
     */
    void require(String action) {
        if (yes) {
            return;
        }
        Console console = terminal();
        if (console == null) {
            throw new ExitCodes.UsageException(action + " needs a confirmation, and standard input is not a"
                    + " terminal to ask on: give --yes to confirm");
        }
        if (!ask(new BufferedReader(console.reader()), console.writer(), action)) {
            throw new ExitCodes.UsageException(action + " not confirmed: nothing changed");
        }
    }

    /** Asks once; only "y" or "yes" (any case) confirms, end of input declines. */
    static boolean ask(BufferedReader in, PrintWriter out, String action) {
        out.print("Really " + action + "? [y/N] ");
        out.flush();
        try {
            String answer = in.readLine();
            return answer != null && switch (answer.trim().toLowerCase(Locale.ROOT)) {
                case "y", "yes" -> true;
                default -> false;
            };
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the answer", e);
        }
    }

    /**
     * The terminal to ask on, or null. Up to JDK 21 {@link System#console()} is one only when standard input and
     * output are terminals; from JDK 22 it is there even when they are not, and {@code isTerminal()} (absent before
     * 22, hence looked up) says whether it is one.
     */
    private static Console terminal() {
        Console console = System.console();
        if (console == null) {
            return null;
        }
        try {
            return (boolean) Console.class.getMethod("isTerminal").invoke(console) ? console : null;
        } catch (NoSuchMethodException beforeJdk22) {
            return console;
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }
}
