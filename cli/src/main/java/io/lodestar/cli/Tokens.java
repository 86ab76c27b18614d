package io.lodestar.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The console's secrets from where other users of the machine cannot read them: a file only its owner may read, or
 * an environment variable (another user sees a command line in {@code ps}, not the environment). Never logged.
 */
final class Tokens {
    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private Tokens() {
    }

    /**
     * The shared tokens of a console without a users file.
     *
     * @param writeToken  reads and writes
     * @param source      where the write token came from, null when it was made at start (then it is printed once)
     * @param readToken   reads only; null when there is none
     * @param readSource  where the read token came from
     */
    record Shared(String writeToken, String source, String readToken, String readSource) {
        /** What the console says of them at start. */
        List<String> describe(boolean readOnly) {
            List<String> lines = new ArrayList<>();
            lines.add(source == null
                    ? "Token (paste it into the page; it reads" + (readOnly ? "" : " and writes") + "): " + writeToken
                    : (readOnly ? "Reads need" : "Reads and writes need") + " the token given (" + source + ").");
            if (readToken != null) {
                lines.add("The read token (from " + readSource + ") allows reads only.");
            }
            return lines;
        }

        @Override
        public String toString() {
            return "Shared[source=" + source + ", readSource=" + readSource + "]"; // never the tokens
        }
    }

    /**
     * The token in {@code file} when given, else in the environment variable, else null.
     *
     * @throws ExitCodes.UsageException when the file cannot be read, is empty, or others may access it
     */
    static String read(Path file, String variable) {
        if (file != null) {
            return fromFile(file);
        }
        String value = System.getenv(variable);
        return value == null || value.isBlank() ? null : value.strip();
    }

    private static String fromFile(Path file) {
        String token = readOwnerOnly(file, "the token file").strip();
        if (token.isEmpty()) {
            throw new ExitCodes.UsageException("the token file " + file + " must hold a token, but was empty");
        }
        return token;
    }

    /**
     * A file that holds secrets (a token, the users' tokens, a private key): read only when no one but its owner may
     * access it, where the file system has POSIX permissions.
     *
     * @param what the file's role, for the messages, e.g. {@code the users file}
     * @throws ExitCodes.UsageException when the file cannot be read or others may access it
     */
    static String readOwnerOnly(Path file, String what) {
        try {
            if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
                Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
                if (permissions.stream().anyMatch(OTHERS::contains)) {
                    throw new ExitCodes.UsageException(what + " " + file + " must be accessible to its owner"
                            + " only (chmod 600), but was " + PosixFilePermissions.toString(permissions));
                }
            }
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ExitCodes.UsageException(what + " " + file + " must exist, but was not found");
        } catch (IOException e) {
            throw new ExitCodes.UsageException(what + " " + file + " must be readable: " + e.getMessage());
        }
    }
}
