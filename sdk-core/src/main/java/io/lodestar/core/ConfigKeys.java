package io.lodestar.core;

import io.lodestar.core.internal.Validation;

import java.nio.file.Path;

/**
 * Where a client gets the keys of encrypted config entries ({@link LodestarOptions.Builder#configKeys}). A client
 * with keys encrypts every config it writes and decrypts what it reads; one without them reads encrypted entries as
 * a {@link ConfigEncryptionException} naming the key, never as ciphertext. The two built-in sources hold a Google
 * Tink keyset of {@code AES256_GCM} keys in Tink's JSON form, as {@code tinkey create-keyset --key-template
 * AES256_GCM} writes it (rotate with {@code tinkey add-key} and {@code promote-key}).
 */
public sealed interface ConfigKeys {
    /**
     * @param path a Tink JSON keyset file, read once when the client starts
     * @return the source
     * @throws InvalidArgumentException when the path is null
     */
    static ConfigKeys keysetFile(Path path) {
        return new KeysetFile(Validation.requireNonNull("path", path));
    }

    /**
     * @param name an environment variable that holds a Tink JSON keyset, read once when the client starts
     * @return the source
     * @throws InvalidArgumentException when the name is null or blank
     */
    static ConfigKeys environmentVariable(String name) {
        Validation.collector().check(name != null && !name.isBlank(), "name", name, "an environment variable name")
                .throwIfInvalid();
        return new EnvironmentVariable(name);
    }

    /**
     * @param provider keys from anywhere, e.g. a KMS or Vault adapter
     * @return the source
     * @throws InvalidArgumentException when the provider is null
     */
    static ConfigKeys provider(ConfigKeyProvider provider) {
        return new Provided(Validation.requireNonNull("provider", provider));
    }

    /** @param path a Tink JSON keyset file */
    record KeysetFile(Path path) implements ConfigKeys {
    }

    /** @param name the environment variable that holds a Tink JSON keyset */
    record EnvironmentVariable(String name) implements ConfigKeys {
    }

    /** @param provider the keys (its toString is never called: it may print secrets) */
    record Provided(ConfigKeyProvider provider) implements ConfigKeys {
        @Override
        public String toString() {
            return "Provided[" + provider.getClass().getName() + "]";
        }
    }
}
