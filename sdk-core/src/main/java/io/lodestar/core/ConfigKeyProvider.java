package io.lodestar.core;

import java.util.Optional;

/**
 * The keys of encrypted config entries (the SPI behind {@link ConfigKeys#provider}): new versions are encrypted
 * under the primary key; every key this provider still holds decrypts the versions written under it, so a rotation
 * is "add a key, make it primary, keep the old one until {@code lodestar config reencrypt} has run". Lodestar asks
 * for keys on every encryption and decryption it cannot serve from memory; a provider that calls a remote service
 * should cache. Implementations must be thread-safe.
 */
public interface ConfigKeyProvider {
    /** @return the id of the key new versions are encrypted under */
    String primaryKeyId();

    /**
     * @param keyId a key id as stored in an entry
     * @return the key, or empty when this provider does not hold it
     */
    Optional<ConfigKey> key(String keyId);
}
