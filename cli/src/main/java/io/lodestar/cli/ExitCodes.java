package io.lodestar.cli;

import io.lodestar.core.AccessDeniedException;
import io.lodestar.core.ConflictException;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.UnavailableException;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The exit codes scripts can rely on. 64 and 70 are the BSD {@code sysexits.h} codes for a usage error and an
 * internal failure; 1, 2 and 3 say what a script most often needs to tell apart.
 */
final class ExitCodes {
    /** Done. */
    static final int OK = 0;
    /** The service, instance, config or version does not exist. */
    static final int NOT_FOUND = 1;
    /** A compare-and-set ({@code --if-version}) found another version. */
    static final int CONFLICT = 2;
    /** Redis could not be reached, refused the credentials, or did not answer in time. */
    static final int UNAVAILABLE = 3;
    /** {@code config who --wait-applied} timed out: a live client still runs another version. */
    static final int NOT_APPLIED = 4;
    /** A bad option, argument or value ({@code EX_USAGE}). */
    static final int USAGE = 64;
    /** Anything else ({@code EX_SOFTWARE}). */
    static final int SOFTWARE = 70;

    private ExitCodes() {
    }

    static int of(Throwable failure) {
        if (failure instanceof NotFoundException) {
            return NOT_FOUND;
        }
        if (failure instanceof ConflictException) {
            return CONFLICT;
        }
        if (failure instanceof UnavailableException || failure instanceof AccessDeniedException) {
            return UNAVAILABLE;
        }
        if (failure instanceof InvalidArgumentException || failure instanceof UsageException) {
            return USAGE;
        }
        return SOFTWARE;
    }

    /** The code's name in structured error output: {@code not_found}, {@code conflict}, ... */
    static String name(int code) {
        return switch (code) {
            case OK -> "ok";
            case NOT_FOUND -> "not_found";
            case CONFLICT -> "conflict";
            case UNAVAILABLE -> "unavailable";
            case NOT_APPLIED -> "not_applied";
            case USAGE -> "usage";
            default -> "failure";
        };
    }

    /**
     * The failure's message for stderr. The SDK's messages carry only redacted URIs; this redacts once more, so a
     * message from a lower layer can never echo a password either.
     */
    static String describe(Throwable failure) {
        String message = failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
        return Secrets.redactAll(message);
    }

    /** A usage error found after parsing (e.g. two sources of content at once). */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /** Keeps URIs with credentials out of anything printed. */
    static final class Secrets {
        private static final Pattern URI = Pattern.compile(
                "rediss?(?:-sentinel|-cluster|-socket)?://\\S+");

        private Secrets() {
        }

        static String redactAll(String text) {
            Matcher matcher = URI.matcher(text);
            StringBuilder out = new StringBuilder();
            while (matcher.find()) {
                matcher.appendReplacement(out, Matcher.quoteReplacement(
                        LodestarOptions.redact(matcher.group())));
            }
            matcher.appendTail(out);
            return out.toString();
        }
    }
}
