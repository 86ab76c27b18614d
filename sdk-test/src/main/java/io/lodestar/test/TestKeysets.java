package io.lodestar.test;

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

/**
 * Keysets for tests of encrypted configs: Google Tink JSON keysets of AES256_GCM keys, as {@code tinkey
 * create-keyset --key-template AES256_GCM} writes them, made on the fly (so no key is ever committed). Needs Tink on
 * the class path (lodestar-redis brings it).
 */
public final class TestKeysets {
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

    /** @return a keyset of one fresh AES256_GCM key */
    public static TestKeysets fresh() {
        try {
            return new TestKeysets(KeysetHandle.generateNew(PredefinedAeadParameters.AES256_GCM));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return this keyset with a fresh key added as the primary (a rotation: the old keys stay, for reading) */
    public TestKeysets rotated() {
        try {
            return new TestKeysets(KeysetHandle.newBuilder(handle).addEntry(KeysetHandle
                    .generateEntryFromParameters(PredefinedAeadParameters.AES256_GCM).withRandomId().makePrimary())
                    .build());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the id of the primary key, as Lodestar stores it (unsigned decimal) */
    public String primaryKeyId() {
        return Integer.toUnsignedString(handle.getPrimary().getId());
    }

    /** @return the keyset in Tink's JSON form (secret: for files and environment variables of tests only) */
    public String json() {
        try {
            return TinkJsonProtoKeysetFormat.serializeKeyset(handle, InsecureSecretKeyAccess.get());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * @param dir where to write
     * @return a new file in {@code dir} that holds the keyset
     */
    public Path writeTo(Path dir) {
        try {
            return Files.writeString(Files.createTempFile(dir, "keyset", ".json"), json());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
