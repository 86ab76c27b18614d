package io.lodestar.core;

import java.security.GeneralSecurityException;

/**
 * One key that protects encrypted config entries (the key-encryption key of the envelope): it wraps and unwraps
 * the fresh data key of every version, and computes the keyed hash that tells "identical content" without
 * revealing it. A KMS or Vault key is a small adapter: encrypt/decrypt call the service's encrypt/decrypt, {@link
 * #mac} its HMAC (Vault transit {@code /hmac}, AWS KMS {@code GenerateMac}). Implementations must be thread-safe.
 */
public interface ConfigKey {
    /** @return the key's id, stored beside every ciphertext it wraps (at most 64 of {@code [A-Za-z0-9._-]}) */
    String id();

    /**
     * @param plaintext      what to encrypt (a data key: 32 bytes)
     * @param associatedData authenticated with it, not encrypted (may be empty)
     * @return the ciphertext
     * @throws GeneralSecurityException when the key cannot encrypt
     */
    byte[] encrypt(byte[] plaintext, byte[] associatedData) throws GeneralSecurityException;

    /**
     * @param ciphertext     what {@link #encrypt} returned
     * @param associatedData what was given to {@link #encrypt}
     * @return the plaintext
     * @throws GeneralSecurityException when the ciphertext was not made by this key with this associated data
     */
    byte[] decrypt(byte[] ciphertext, byte[] associatedData) throws GeneralSecurityException;

    /**
     * A deterministic keyed hash (a MAC or PRF): equal data give equal results, and without the key the result
     * tells nothing about the data.
     *
     * @param data what to hash
     * @return the MAC, at least 16 bytes
     * @throws GeneralSecurityException when the key cannot compute it
     */
    byte[] mac(byte[] data) throws GeneralSecurityException;
}
