package io.lodestar.test;

import java.nio.file.Path;

/**
 * A real Redis server that speaks TLS only (its plain port is off), with a certificate from a throwaway CA the
 * kit made when it started the server. Get one from {@link TestRedis#startTls()}; the caller closes it.
 *
 * <p>{@link #uri()} is {@code rediss://127.0.0.1:PORT?verifyPeer=NONE}: the connection is encrypted, but the
 * client does not check the certificate, because no JVM trusts the throwaway CA, and the only way to make a
 * URI-configured Lettuce client trust it would be the JVM-wide {@code javax.net.ssl.trustStore} property, which
 * the kit must not change behind the tests' backs. To test certificate checking as well, connect to
 * {@code rediss://127.0.0.1:PORT} (Lettuce then verifies the chain and that the certificate names 127.0.0.1,
 * which it does) with a client that trusts {@link #caCertificate()} or {@link #trustStore()}, e.g. Lettuce's
 * {@code SslOptions.builder().trustManager(caCertificate().toFile())}, or by setting
 * {@code javax.net.ssl.trustStore}, {@code trustStorePassword} and {@code trustStoreType=PKCS12} for the test.
 *
 * <p>The CA and the certificate stay the same across {@link #restart()}; the files are in the server's private
 * directory and are deleted with it.
 */
public interface TlsRedisServer extends RedisServer {

    /**
     * The URI clients connect to: TLS without certificate checks (see the type's description).
     *
     * @return {@code rediss://127.0.0.1:PORT?verifyPeer=NONE}
     */
    @Override
    String uri();

    /**
     * The throwaway CA's certificate, PEM-encoded. It signed the server's certificate, which names
     * {@code 127.0.0.1} and {@code localhost} as subject alternative names.
     *
     * @return the path of {@code ca.crt}
     * @throws IllegalStateException if the server was closed
     */
    Path caCertificate();

    /**
     * A PKCS12 trust store holding the CA's certificate, for clients configured with a key store rather than a
     * PEM file. Written on the first call (it takes about half a second on a cold JVM).
     *
     * @return the path of {@code truststore.p12}; its password is {@link #trustStorePassword()}
     * @throws IllegalStateException if the server was closed
     * @throws java.io.UncheckedIOException if it cannot be written
     */
    Path trustStore();

    /**
     * The password of {@link #trustStore()}. It protects nothing secret: the store holds only a certificate.
     *
     * @return the password
     */
    String trustStorePassword();
}
