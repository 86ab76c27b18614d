package io.lodestar.core;

import org.jspecify.annotations.Nullable;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Another region a client reads (never writes): its name and where its Redis is. Named with
 * {@link LodestarOptions.Builder#remoteRegion(String, String, Path)}, which checks it.
 *
 * @param name                   the region's name, e.g. {@code us-east}
 * @param redisUri               its Redis, credentials included (the URI forms of {@link Lodestar#connect(String)}):
 *                               never log it, {@link #toString()} hides them
 * @param tlsTrustedCertificates a PEM file of the CA certificates to trust for its {@code rediss://} URI, or null
 *                               for the JVM's default trust store
 */
public record RemoteRegion(String name, String redisUri, @Nullable Path tlsTrustedCertificates) {
    /** @return the CA certificates to trust for this region's TLS, if set */
    public Optional<Path> trustedCertificates() {
        return Optional.ofNullable(tlsTrustedCertificates);
    }

    /** @return the name and the URI without its secrets */
    @Override
    public String toString() {
        return "RemoteRegion[name=" + name + ", redisUri=" + LodestarOptions.redact(redisUri)
                + ", tlsTrustedCertificates=" + tlsTrustedCertificates + "]";
    }
}
