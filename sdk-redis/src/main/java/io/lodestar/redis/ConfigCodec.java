package io.lodestar.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.crypto.tink.Aead;
import com.google.crypto.tink.aead.AesGcmParameters;
import com.google.crypto.tink.aead.KmsEnvelopeAead;
import io.lodestar.core.ConfigEncryptionException;
import io.lodestar.core.ConfigKey;
import io.lodestar.core.ConfigKeyProvider;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarException;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.Violation;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.ConfigRolledBack;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.GrayRelease;
import org.jspecify.annotations.Nullable;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one place where a config's content turns into what Redis stores and back: every write encodes here, every
 * entry handed to a caller or a listener is decoded here, and nothing else in the config path looks inside.
 * <p>
 * With keys, content is stored as {@code lodestar:encrypted:1:<key id>:<base64>}: Tink's envelope AEAD (a fresh
 * AES256-GCM data key per version, wrapped by the provider's key), authenticated with the namespace, the config id
 * and the key id, so ciphertext moved to another config or another key fails the integrity check. The content hash
 * that makes an unchanged set a no-op is then {@code hmac:<key id>:<hex>}, an HMAC under the key instead of the
 * SHA-1 of plain entries: it reveals nothing, and equal content under the same key still compares
 * equal. Redis, the view and the snapshot directory hold the stored form; only callers see plaintext.
 */
final class ConfigCodec {
    /** What marks an encrypted content; a plain content cannot start with it. */
    static final String MARK = "lodestar:encrypted:";
    private static final String PREFIX = MARK + "1:";
    /** What an entry this client cannot decrypt reads as, with placeholders on: the key id and '>' follow. */
    private static final String PLACEHOLDER = "<encrypted: key ";
    private static final AesGcmParameters DATA_KEY;

    static {
        try {
            DATA_KEY = AesGcmParameters.builder().setKeySizeBytes(32).setIvSizeBytes(12).setTagSizeBytes(16)
                    .setVariant(AesGcmParameters.Variant.NO_PREFIX).build();
        } catch (GeneralSecurityException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String namespace;
    private final @Nullable ConfigKeyProvider keys;
    private final boolean placeholders;
    private final Map<String, Aead> envelopes = new ConcurrentHashMap<>();
    /**
     * Decoded entries by the stored entry instance the view holds (weak keys compare by identity), so a read from
     * the view decrypts once per version, not once per call.
     */
    private final Cache<ConfigEntry, ConfigEntry> decoded;

    ConfigCodec(String namespace, @Nullable ConfigKeyProvider keys, boolean placeholders, int cacheLimit) {
        this.namespace = namespace;
        this.keys = keys;
        this.placeholders = placeholders;
        this.decoded = Caffeine.newBuilder().weakKeys().maximumSize(cacheLimit).build();
    }

    /** The codec of the client's options: with the keys they name (read now), or without keys. */
    static ConfigCodec of(LodestarOptions options) {
        return new ConfigCodec(options.namespace().name(),
                options.configKeys().map(source -> TinkKeyset.resolve(source, System::getenv)).orElse(null),
                options.encryptedConfigPlaceholders(), options.viewTopicLimit());
    }

    /**
     * A content as stored and its hash: the SHA-1 of a plain content, computed here rather than by the script (over
     * 1 KiB it is a sizeable part of a config write's Redis time, and Redis time is what one shard's writes share).
     */
    record Stored(String content, String hash) {
    }

    /**
     * @throws InvalidArgumentException when a plain content starts with {@link #MARK} (it would read as encrypted),
     *                                  or is a placeholder in a client that shows them
     * @throws LodestarException        when the provider lacks its primary key or fails to encrypt
     */
    Stored encode(String configId, String content) {
        if (placeholders && content.startsWith(PLACEHOLDER) && content.endsWith(">")) {
            // an operator tool that shows placeholders must never save one back as the content
            throw new InvalidArgumentException(new Violation("content", content, "not the placeholder of an"
                    + " encrypted entry that this client cannot read"));
        }
        if (keys == null) {
            if (content.startsWith(MARK)) {
                throw new InvalidArgumentException(new Violation("content", "text starting with '" + MARK + "'",
                        "without the prefix '" + MARK + "' (which marks encrypted entries) in a client"
                                + " without config keys"));
            }
            return new Stored(content, Digests.sha1Hex(content));
        }
        String keyId = keys.primaryKeyId();
        if (keyId == null || !keyId.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new InvalidArgumentException(new Violation("primaryKeyId", keyId, "1-64 of [A-Za-z0-9._-]"));
        }
        ConfigKey key = keys.key(keyId).orElseThrow(() -> new LodestarException("Cannot encrypt config '" + configId
                + "': the key provider does not hold its own primary key '" + keyId + "'"));
        byte[] plaintext = content.getBytes(StandardCharsets.UTF_8);
        byte[] context = context(configId, keyId);
        try {
            String ciphertext = Base64.getEncoder().encodeToString(envelope(key).encrypt(plaintext, context));
            byte[] mac = key.mac(concat(context, plaintext));
            return new Stored(PREFIX + keyId + ":" + ciphertext, ConfigEntry.KEYED_HASH + keyId + ":" + HexFormat.of()
                    .formatHex(mac));
        } catch (GeneralSecurityException e) {
            throw new LodestarException("Cannot encrypt config '" + configId + "' under key '" + keyId + "': "
                    + e.getClass().getSimpleName(), e);
        }
    }

    /** @return the id of the key an entry as stored is encrypted under, or null when it is plain */
    static @Nullable String keyId(ConfigEntry stored) {
        String content = stored.content();
        if (!content.startsWith(MARK)) {
            return null;
        }
        int end = content.indexOf(':', PREFIX.length());
        return content.startsWith(PREFIX) && end > PREFIX.length() ? content.substring(PREFIX.length(), end) : "?";
    }

    /**
     * @return the entry with its plaintext (a plain entry as it is)
     * @throws ConfigEncryptionException naming the config, version and key when this client lacks the key or the
     *     ciphertext fails its integrity check; never with the content in the message
     */
    ConfigEntry decode(ConfigEntry stored) {
        String keyId = keyId(stored);
        if (keyId == null) {
            if (stored.keyId().isPresent()) {
                // a keyed hash beside plain content: the ciphertext was replaced in Redis; never serve the stand-in
                throw new ConfigEncryptionException("Integrity check failed for config '" + stored.id() + "' version "
                        + stored.version() + " in namespace '" + namespace + "' (key '" + stored.keyId().get()
                        + "'): its content hash says encrypted, but its content in Redis is not", stored.id(),
                        stored.version(), stored.keyId().get(), ConfigEncryptionException.Reason.INTEGRITY, null);
            }
            return stored;
        }
        ConfigEntry known = decoded.getIfPresent(stored);
        if (known != null) {
            return known;
        }
        ConfigEntry plain = decrypt(stored, keyId);
        decoded.put(stored, plain);
        return plain;
    }

    /**
     * @return the entry, if any, decoded: the very same {@code Optional} when nothing needed decoding, so a read of
     *     a held plain entry allocates nothing
     * @throws ConfigEncryptionException as {@link #decode(ConfigEntry)}
     */
    Optional<ConfigEntry> decode(Optional<ConfigEntry> stored) {
        if (stored.isEmpty()) {
            return stored;
        }
        ConfigEntry decoded = decode(stored.get());
        return decoded == stored.get() ? stored : Optional.of(decoded);
    }

    /**
     * @return the gray release with its content decoded (a plain one as it is), through {@link #decode(ConfigEntry)}
     * @throws ConfigEncryptionException as {@link #decode(ConfigEntry)}
     */
    GrayRelease decode(GrayRelease stored) {
        ConfigEntry content = decode(new ConfigEntry(stored.configId(), stored.content(), stored.format(),
                stored.baseVersion(), stored.contentHash(), stored.startedAt(), stored.updatedAt()));
        return content.content().equals(stored.content()) ? stored : new GrayRelease(stored.configId(),
                content.content(), stored.format(), stored.contentHash(), stored.rule(), stored.salt(),
                stored.baseVersion(), stored.revision(), stored.startedAt(), stored.updatedAt());
    }

    /**
     * @return the event with its entry decoded (a removal as it is)
     * @throws ConfigEncryptionException as {@link #decode(ConfigEntry)}
     */
    ConfigEvent decode(ConfigEvent event) {
        if (event instanceof ConfigChanged changed) {
            ConfigEntry entry = decode(changed.entry());
            return entry == changed.entry() ? event : new ConfigChanged(changed.configId(), changed.version(), entry);
        }
        if (event instanceof ConfigRolledBack rolledBack) {
            ConfigEntry entry = decode(rolledBack.entry());
            return entry == rolledBack.entry() ? event : new ConfigRolledBack(rolledBack.configId(),
                    rolledBack.version(), rolledBack.fromVersion(), entry);
        }
        return event;
    }

    private ConfigEntry decrypt(ConfigEntry stored, String keyId) {
        String where = "config '" + stored.id() + "' version " + stored.version() + " in namespace '" + namespace
                + "'";
        ConfigKey key = keys == null ? null : keys.key(keyId).orElse(null);
        if (key == null && placeholders) {
            return new ConfigEntry(stored.id(), PLACEHOLDER + keyId + ">", stored.format(), stored.version(),
                    stored.contentHash(), stored.createdAt(), stored.updatedAt());
        }
        if (key == null) {
            throw new ConfigEncryptionException("Cannot read " + where + ": it is encrypted under key '" + keyId
                    + "', which this client does not hold (" + (keys == null ? "no config keys are configured"
                    : "its keys: primary '" + keys.primaryKeyId() + "'") + ")", stored.id(), stored.version(), keyId,
                    ConfigEncryptionException.Reason.KEY_NOT_HELD, null);
        }
        try {
            byte[] ciphertext = Base64.getDecoder().decode(stored.content().substring(PREFIX.length()
                    + keyId.length() + 1));
            String content = new String(envelope(key).decrypt(ciphertext, context(stored.id(), keyId)),
                    StandardCharsets.UTF_8);
            return new ConfigEntry(stored.id(), content, stored.format(), stored.version(), stored.contentHash(),
                    stored.createdAt(), stored.updatedAt());
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            // the cause's message is Tink's or the decoder's, about bytes, never the plaintext
            throw new ConfigEncryptionException("Integrity check failed for " + where + " (key '" + keyId
                    + "'): its ciphertext in Redis was changed, or was written for another config or namespace",
                    stored.id(), stored.version(), keyId, ConfigEncryptionException.Reason.INTEGRITY, e);
        }
    }

    /** Tink's envelope AEAD over one key: a fresh data key per version, wrapped by the key. */
    private Aead envelope(ConfigKey key) {
        return envelopes.computeIfAbsent(key.id(), id -> {
            try {
                return KmsEnvelopeAead.create(DATA_KEY, new Aead() {
                    @Override
                    public byte[] encrypt(byte[] plaintext, byte[] associatedData) throws GeneralSecurityException {
                        return key.encrypt(plaintext, associatedData);
                    }

                    @Override
                    public byte[] decrypt(byte[] ciphertext, byte[] associatedData) throws GeneralSecurityException {
                        return key.decrypt(ciphertext, associatedData);
                    }
                });
            } catch (GeneralSecurityException e) {
                throw new LodestarException("Cannot use config key '" + id + "': " + e.getClass().getSimpleName(), e);
            }
        });
    }

    /** What every ciphertext and hash is bound to: the namespace, the config and the key. */
    private byte[] context(String configId, String keyId) {
        return ("lodestar config\0" + namespace + "\0" + configId + "\0" + keyId).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] context, byte[] plaintext) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(context.length + 1 + plaintext.length);
        out.writeBytes(context);
        out.write(0);
        out.writeBytes(plaintext);
        return out.toByteArray();
    }
}
