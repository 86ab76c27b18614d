package io.lodestar.test;

import java.nio.file.Files;
import java.nio.file.Path;

/** A TLS-only {@link ManagedRedisServer} and its certificates, as a {@link TlsRedisServer}. */
final class LocalTlsRedisServer extends ForwardingRedisServer implements TlsRedisServer {

    static final String TRUST_STORE_FILE = "truststore.p12";

    private final ManagedRedisServer server;
    private final TlsCertificates certificates;
    private boolean closed;

    private LocalTlsRedisServer(ManagedRedisServer server, TlsCertificates certificates) {
        super(server);
        this.server = server;
        this.certificates = certificates;
    }

    /**
     * Makes a CA and a server certificate, starts the server with them and returns once it answers {@code PING}
     * through TLS.
     *
     * @throws IllegalStateException if it does not start within 10 s (the message holds the log tail)
     * @throws org.opentest4j.TestAbortedException if the binary was built without TLS
     */
    static LocalTlsRedisServer start(RedisSource.Binary binary, String name) {
        TlsCertificates certificates = TlsCertificates.generate();
        ManagedRedisServer server = ManagedRedisServer.start(binary, name, ManagedRedisServer.Setup.tls(certificates));
        return new LocalTlsRedisServer(server, certificates);
    }

    private synchronized void ensureOpen(String operation) {
        if (closed) {
            throw new IllegalStateException(operation + " on a closed " + this);
        }
    }

    @Override
    public Path caCertificate() {
        ensureOpen("caCertificate()");
        return server.tlsDir().resolve(TlsCertificates.CA_FILE);
    }

    @Override
    public synchronized Path trustStore() {
        ensureOpen("trustStore()");
        Path file = server.tlsDir().resolve(TRUST_STORE_FILE);
        if (!Files.exists(file)) {
            certificates.writeTrustStore(file);
        }
        return file;
    }

    @Override
    public String trustStorePassword() {
        return TlsCertificates.TRUST_STORE_PASSWORD;
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        server.close();
    }

    /** The process behind it, for tests of the kit. */
    ManagedRedisServer server() {
        return server;
    }

    @Override
    public String toString() {
        return server.toString() + " (TLS only)";
    }
}
