package io.lodestar.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Message digests of a text's UTF-8 bytes. */
final class Digests {
    private Digests() {
    }

    /** SHA-1, lowercase hex: what Redis' {@code redis.sha1hex} gives for the same text. */
    static String sha1Hex(String text) {
        return HexFormat.of().formatHex(of("SHA-1", text));
    }

    /** The digest by {@code algorithm}, one every JDK has (SHA-1, SHA-256). */
    static byte[] of(String algorithm, String text) {
        try {
            return MessageDigest.getInstance(algorithm).digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " is required of every JDK", e);
        }
    }
}
