package io.lodestar.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Users files for tests, as an operator writes them: YAML that only its owner may read. */
final class TestUsers {
    private TestUsers() {
    }

    static Path file(Path dir, String yaml) throws IOException {
        Path file = Files.writeString(dir.resolve("users.yaml"), yaml);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    /** What the file may hold instead of the token: {@code sha256:} and its digest in hex. */
    static String sha256(String token) throws NoSuchAlgorithmException {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(token.getBytes(StandardCharsets.UTF_8)));
    }
}
