package io.lodestar.core;

/**
 * An encrypted config entry could not be decrypted: this client does not hold its key ({@link
 * Reason#KEY_NOT_HELD}), or its ciphertext failed the integrity check ({@link Reason#INTEGRITY}: it was changed in
 * Redis, or belongs to another config). The message names the config, the version and the key, never the content.
 */
public class ConfigEncryptionException extends LodestarException {
    private static final long serialVersionUID = 1L;

    /** Why the entry could not be read. */
    public enum Reason {
        /** The client has no keys, or not the key the entry names. */
        KEY_NOT_HELD,
        /** The ciphertext (or the key id beside it) was changed, or was made for another config. */
        INTEGRITY
    }

    private final String configId;
    private final long version;
    private final String keyId;
    private final Reason reason;

    /**
     * @param message  what went wrong, with the ids involved
     * @param configId the config
     * @param version  the version that could not be read
     * @param keyId    the key id stored in the entry
     * @param reason   why
     * @param cause    the cryptographic failure, or null
     */
    public ConfigEncryptionException(String message, String configId, long version, String keyId, Reason reason,
                                     Throwable cause) {
        super(message, cause);
        this.configId = configId;
        this.version = version;
        this.keyId = keyId;
        this.reason = reason;
    }

    /** @return the config id */
    public String configId() {
        return configId;
    }

    /** @return the version that could not be read */
    public long version() {
        return version;
    }

    /** @return the id of the key the entry is encrypted under */
    public String keyId() {
        return keyId;
    }

    /** @return why it could not be read */
    public Reason reason() {
        return reason;
    }
}
