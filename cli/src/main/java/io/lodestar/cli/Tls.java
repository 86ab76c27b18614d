package io.lodestar.cli;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The console's TLS from PEM files, as Consul ({@code cert_file}, {@code key_file}) and the Kubernetes dashboard
 * ({@code --tls-cert-file}, {@code --tls-key-file}) take them: a certificate chain and an unencrypted PKCS#8 private
 * key, which is what {@code openssl}, cert-manager and Let's Encrypt clients write. The JDK reads both without a
 * library.
 */
final class Tls {
    private static final Pattern PRIVATE_KEY = Pattern.compile(
            "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    private static final Pattern OTHER_KEY = Pattern.compile("-----BEGIN ([A-Z ]*)PRIVATE KEY-----");
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448");

    private Tls() {
    }

    /**
     * @param certificate the server's certificate first, then the chain up to (not necessarily including) the root
     * @param key         its private key, PKCS#8 ({@code BEGIN PRIVATE KEY}), not encrypted; only its owner may read
     *                    the file
     * @throws ExitCodes.UsageException naming the file and what is wrong with it
     */
    static SSLContext fromPem(Path certificate, Path key) {
        Certificate[] chain = chain(certificate);
        PrivateKey privateKey = privateKey(key);
        try {
            char[] none = new char[0];
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, none);
            store.setKeyEntry("console", privateKey, none, chain);
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, none);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new ExitCodes.UsageException("--tls-key " + key + " must be the private key of --tls-cert "
                    + certificate + ": " + e.getMessage());
        }
    }

    private static Certificate[] chain(Path file) {
        try {
            Certificate[] chain = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(Files.readAllBytes(file)))
                    .toArray(Certificate[]::new);
            if (chain.length == 0) {
                throw new ExitCodes.UsageException("--tls-cert " + file + " must hold a PEM certificate (BEGIN"
                        + " CERTIFICATE), but held none");
            }
            return chain;
        } catch (NoSuchFileException e) {
            throw new ExitCodes.UsageException("--tls-cert " + file + " must exist, but was not found");
        } catch (IOException | CertificateException e) {
            throw new ExitCodes.UsageException("--tls-cert " + file + " must hold PEM certificates (BEGIN"
                    + " CERTIFICATE): " + e.getMessage());
        }
    }

    private static PrivateKey privateKey(Path file) {
        String pem = Tokens.readOwnerOnly(file, "--tls-key");
        Matcher matcher = PRIVATE_KEY.matcher(pem);
        if (!matcher.find()) {
            Matcher other = OTHER_KEY.matcher(pem);
            throw new ExitCodes.UsageException("--tls-key " + file + " must hold an unencrypted PKCS#8 key (BEGIN"
                    + " PRIVATE KEY), but held " + (other.find() ? "BEGIN " + other.group(1) + "PRIVATE KEY: convert"
                    + " it with openssl pkcs8 -topk8 -nocrypt" : "none"));
        }
        byte[] der = Base64.getMimeDecoder().decode(matcher.group(1));
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (InvalidKeySpecException | NoSuchAlgorithmException notThisOne) {
                // the next algorithm (PKCS#8 names it, but KeyFactory wants it named first)
            }
        }
        throw new ExitCodes.UsageException("--tls-key " + file + " must be an RSA, EC or EdDSA key, but was none"
                + " of them");
    }
}
