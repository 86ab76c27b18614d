package io.lodestar.redis;

import com.google.crypto.tink.Aead;
import com.google.crypto.tink.InsecureSecretKeyAccess;
import com.google.crypto.tink.KeyStatus;
import com.google.crypto.tink.KeysetHandle;
import com.google.crypto.tink.TinkJsonProtoKeysetFormat;
import com.google.crypto.tink.aead.AeadConfig;
import com.google.crypto.tink.aead.AesGcmKey;
import com.google.crypto.tink.subtle.AesGcmJce;
import com.google.crypto.tink.subtle.Hkdf;
import io.lodestar.core.ConfigKey;
import io.lodestar.core.ConfigKeyProvider;
import io.lodestar.core.ConfigKeys;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.Violation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The built-in key provider: a Google Tink keyset of AES256_GCM keys in Tink's JSON form, from a file or an
 * environment variable. Key ids are Tink's (unsigned decimal). Each key encrypts with Tink's AES-GCM and derives its
 * content-hash key with HKDF, so one keyset serves both; disabled and destroyed keys are left out.
 */
final class TinkKeyset implements ConfigKeyProvider {
    static {
        try {
            AeadConfig.register();
        } catch (GeneralSecurityException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final byte[] MAC_KEY_INFO = "lodestar config content hash".getBytes(StandardCharsets.US_ASCII);

    private final String primaryKeyId;
    private final Map<String, ConfigKey> keys;

    private TinkKeyset(String primaryKeyId, Map<String, ConfigKey> keys) {
        this.primaryKeyId = primaryKeyId;
        this.keys = Map.copyOf(keys);
    }

    /**
     * @param source where the keys are
     * @param env    reads an environment variable (System::getenv in production)
     * @return the provider the source names (a user's provider as it is)
     * @throws InvalidArgumentException naming the source when its keyset cannot be read or used
     */
    static ConfigKeyProvider resolve(ConfigKeys source, UnaryOperator<String> env) {
        if (source instanceof ConfigKeys.Provided provided) {
            return provided.provider();
        }
        if (source instanceof ConfigKeys.KeysetFile file) {
            String json;
            try {
                json = Files.readString(file.path(), StandardCharsets.UTF_8);
            } catch (IOException | RuntimeException e) {
                throw invalid("configKeys", file.path(), "a readable Tink JSON keyset file (" + e.getClass().getSimpleName()
                        + ")");
            }
            return parse(json, "configKeys", file.path());
        }
        String name = ((ConfigKeys.EnvironmentVariable) source).name();
        String json = env.apply(name);
        if (json == null || json.isBlank()) {
            throw invalid("configKeys", "environment variable " + name, "set to a Tink JSON keyset (it is unset)");
        }
        return parse(json, "configKeys", "environment variable " + name);
    }

    /** Never passes Tink's or the JSON parser's message on: it may quote the keyset, which holds the keys. */
    static TinkKeyset parse(String json, String field, Object origin) {
        KeysetHandle handle;
        try {
            handle = TinkJsonProtoKeysetFormat.parseKeyset(json, InsecureSecretKeyAccess.get());
        } catch (GeneralSecurityException | RuntimeException e) {
            throw invalid(field, origin, "a Tink JSON keyset (tinkey create-keyset --key-template AES256_GCM)");
        }
        Map<String, ConfigKey> keys = new HashMap<>();
        for (int i = 0; i < handle.size(); i++) {
            KeysetHandle.Entry entry = handle.getAt(i);
            String id = Integer.toUnsignedString(entry.getId());
            if (entry.getStatus() != KeyStatus.ENABLED) {
                continue;
            }
            if (!(entry.getKey() instanceof AesGcmKey key) || key.getParameters().getKeySizeBytes() != 32) {
                throw invalid(field, origin, "a keyset of AES256_GCM keys (key " + id + " is a "
                        + entry.getKey().getParameters() + ")");
            }
            try {
                keys.put(id, new TinkKey(id, AesGcmJce.create(key), Hkdf.computeHkdf("HMACSHA256",
                        key.getKeyBytes().toByteArray(InsecureSecretKeyAccess.get()), new byte[0], MAC_KEY_INFO, 32)));
            } catch (GeneralSecurityException e) {
                throw invalid(field, origin, "a keyset whose keys this JVM can use (key " + id + ")");
            }
        }
        return new TinkKeyset(Integer.toUnsignedString(handle.getPrimary().getId()), keys);
    }

    private static InvalidArgumentException invalid(String field, Object origin, String rule) {
        return new InvalidArgumentException(new Violation(field, String.valueOf(origin), rule));
    }

    @Override
    public String primaryKeyId() {
        return primaryKeyId;
    }

    @Override
    public Optional<ConfigKey> key(String keyId) {
        return Optional.ofNullable(keys.get(keyId));
    }

    @Override
    public String toString() {
        return "TinkKeyset[primary=" + primaryKeyId + ", keys=" + keys.keySet() + "]";
    }

    /** One key of the keyset; its toString names only the id. */
    private record TinkKey(String id, Aead aead, byte[] macKey) implements ConfigKey {
        @Override
        public byte[] encrypt(byte[] plaintext, byte[] associatedData) throws GeneralSecurityException {
            return aead.encrypt(plaintext, associatedData);
        }

        @Override
        public byte[] decrypt(byte[] ciphertext, byte[] associatedData) throws GeneralSecurityException {
            return aead.decrypt(ciphertext, associatedData);
        }

        @Override
        public byte[] mac(byte[] data) throws GeneralSecurityException {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(macKey, "HmacSHA256"));
            return mac.doFinal(data);
        }

        @Override
        public String toString() {
            return "TinkKey[" + id + "]";
        }
    }
}
