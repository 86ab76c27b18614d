package io.lodestar.redis;

import io.lodestar.core.ConfigKey;
import io.lodestar.core.ConfigKeyProvider;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.crypto.Cipher;
import javax.crypto.KeyGenerator;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The example of docs/config.md: a KMS or Vault key as a {@link ConfigKeyProvider}, a small adapter whose three
 * operations call the service's encrypt, decrypt and HMAC (Vault transit: {@code /encrypt}, {@code /decrypt},
 * {@code /hmac}; AWS KMS: Encrypt, Decrypt, GenerateMac). Lodestar's envelope sends the service only the 32-byte
 * data key of each version (and the keyed hash's input), never stores the service's key.
 */
final class ExampleKmsKeyProvider implements ConfigKeyProvider {
    private final FakeKms kms;
    private final String keyName;

    ExampleKmsKeyProvider(FakeKms kms, String keyName) {
        this.kms = kms;
        this.keyName = keyName;
    }

    @Override
    public String primaryKeyId() {
        return keyName;
    }

    @Override
    public Optional<ConfigKey> key(String keyId) {
        return Optional.of(new ConfigKey() {
            @Override
            public String id() {
                return keyId;
            }

            @Override
            public byte[] encrypt(byte[] plaintext, byte[] associatedData) throws GeneralSecurityException {
                return kms.encrypt(plaintext, associatedData);
            }

            @Override
            public byte[] decrypt(byte[] ciphertext, byte[] associatedData) throws GeneralSecurityException {
                return kms.decrypt(ciphertext, associatedData);
            }

            @Override
            public byte[] mac(byte[] data) throws GeneralSecurityException {
                return kms.hmac(data);
            }
        });
    }

    /** Stands in for the remote service: its key never leaves it, and it records the plaintexts it was sent. */
    static final class FakeKms {
        private final SecretKey key;
        private final SecureRandom random = new SecureRandom();
        private final List<byte[]> seen = new CopyOnWriteArrayList<>();

        FakeKms() {
            try {
                KeyGenerator generator = KeyGenerator.getInstance("AES");
                generator.init(256);
                key = generator.generateKey();
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }

        byte[] encrypt(byte[] plaintext, byte[] aad) throws GeneralSecurityException {
            seen.add(plaintext);
            byte[] iv = new byte[12];
            random.nextBytes(iv);
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, iv));
            cipher.updateAAD(aad);
            return ByteBuffer.allocate(12 + plaintext.length + 16).put(iv).put(cipher.doFinal(plaintext)).array();
        }

        byte[] decrypt(byte[] ciphertext, byte[] aad) throws GeneralSecurityException {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, ciphertext, 0, 12));
            cipher.updateAAD(aad);
            return cipher.doFinal(ciphertext, 12, ciphertext.length - 12);
        }

        /** The service's HMAC sees the keyed hash's input; a real one is another key of the same service. */
        byte[] hmac(byte[] data) throws GeneralSecurityException {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.getEncoded(), "HmacSHA256"));
            return mac.doFinal(data);
        }

        /** What was sent to be encrypted: data keys only. */
        List<byte[]> seen() {
            return seen;
        }
    }
}
