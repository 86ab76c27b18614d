package io.lodestar.cli;

import org.junit.jupiter.api.Assumptions;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for {@code localhost} and {@code 127.0.0.1} with its PKCS#8 key, as PEM files made by
 * the {@code openssl} command (what an operator would use); skipped, saying so, where there is no openssl.
 *
 * @param certificate the certificate (PEM)
 * @param key         its private key (PEM, PKCS#8, unencrypted), readable by its owner only
 */
record TestCertificate(Path certificate, Path key) {
    /** @param algorithm {@code rsa:2048} or {@code ec} (P-256) */
    static TestCertificate create(Path dir, String algorithm) throws IOException, InterruptedException {
        Path certificate = dir.resolve("console.crt");
        Path key = dir.resolve("console.key");
        List<String> command = new ArrayList<>(List.of("openssl", "req", "-x509", "-newkey", algorithm));
        if (algorithm.equals("ec")) {
            command.addAll(List.of("-pkeyopt", "ec_paramgen_curve:P-256"));
        }
        command.addAll(List.of("-nodes", "-days", "1", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                "-keyout", key.toString(), "-out", certificate.toString()));
        Process openssl;
        try {
            openssl = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException noOpenssl) {
            Assumptions.abort("No openssl on the PATH to make a test certificate: " + noOpenssl.getMessage());
            throw noOpenssl;
        }
        byte[] output = openssl.getInputStream().readAllBytes();
        if (!openssl.waitFor(60, TimeUnit.SECONDS) || openssl.exitValue() != 0) {
            openssl.destroyForcibly();
            throw new AssertionError("openssl failed: " + new String(output));
        }
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        return new TestCertificate(certificate, key);
    }

    /** A client context that trusts this certificate alone. */
    SSLContext trusted() throws IOException, GeneralSecurityException {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(certificate)) {
            trust.setCertificateEntry("console", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trustManagers.getTrustManagers(), null);
        return context;
    }
}
