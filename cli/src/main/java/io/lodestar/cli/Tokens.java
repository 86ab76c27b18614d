package io.lodestar.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * The console's tokens from where other users of the machine cannot read them: a file only its owner may read, or
 * an environment variable (another user sees a command line in {@code ps}, not the environment). Never logged.
 */
final class Tokens {
    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private Tokens() {
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
        try {
            if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
                Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
                if (permissions.stream().anyMatch(OTHERS::contains)) {
                    throw new ExitCodes.UsageException("the token file " + file + " must be accessible to its owner"
                            + " only (chmod 600), but was " + PosixFilePermissions.toString(permissions));
                }
            }
            String token = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (token.isEmpty()) {
                throw new ExitCodes.UsageException("the token file " + file + " must hold a token, but was empty");
            }
            return token;
        } catch (NoSuchFileException e) {
            throw new ExitCodes.UsageException("the token file " + file + " must exist, but was not found");
        } catch (IOException e) {
            throw new ExitCodes.UsageException("the token file " + file + " must be readable: " + e.getMessage());
        }
    }
}
