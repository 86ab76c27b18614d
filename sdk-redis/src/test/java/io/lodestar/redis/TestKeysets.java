package io.lodestar.redis;

import com.google.crypto.tink.InsecureSecretKeyAccess;
import com.google.crypto.tink.KeysetHandle;
import com.google.crypto.tink.TinkJsonProtoKeysetFormat;
import com.google.crypto.tink.aead.AeadConfig;
import com.google.crypto.tink.aead.PredefinedAeadParameters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;

/** Test helper: Tink JSON keysets as {@code tinkey} writes them, made on the fly (keys are never committed). */
final class TestKeysets {
    static {
        try {
            AeadConfig.register();
        } catch (GeneralSecurityException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final KeysetHandle handle;

    private TestKeysets(KeysetHandle handle) {
        this.handle = handle;
    }

    /** A keyset of one fresh AES256_GCM key. */
    static TestKeysets fresh() {
        try {
            return new TestKeysets(KeysetHandle.generateNew(PredefinedAeadParameters.AES256_GCM));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** This keyset with a fresh key added as the primary (a rotation: the old keys stay, for reading). */
    TestKeysets rotated() {
        try {
            return new TestKeysets(KeysetHandle.newBuilder(handle).addEntry(KeysetHandle
                    .generateEntryFromParameters(PredefinedAeadParameters.AES256_GCM).withRandomId().makePrimary())
                    .build());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    String primaryKeyId() {
        return Integer.toUnsignedString(handle.getPrimary().getId());
    }

    String json() {
        try {
            return TinkJsonProtoKeysetFormat.serializeKeyset(handle, InsecureSecretKeyAccess.get());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes the keyset to a file in {@code dir} and returns it. */
    Path writeTo(Path dir) {
        try {
            return Files.writeString(Files.createTempFile(dir, "keyset", ".json"), json());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
