package io.lodestar.test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throwaway certificate authority and one server certificate it signed, made in memory for a TLS test server.
 *
 * <p>Why by hand: the JDK has no public API to issue certificates, and the alternatives each cost something —
 * {@code keytool} is a separate JVM per step (seconds) and may be missing from a runtime image, {@code openssl}
 * may be missing from {@code PATH}, Bouncy Castle would be a new dependency of every test class path. A DER
 * encoder for the few structures an X.509 v3 certificate needs is short, runs in milliseconds and needs only
 * {@code java.security}. Keys are EC P-256, signatures SHA256withECDSA, both understood by OpenSSL and JSSE.
 *
 * <p>The server certificate names {@code 127.0.0.1} (and {@code localhost}) as subject alternative names, so a
 * client that verifies host names ({@code verifyPeer=FULL}) accepts it once it trusts the CA.
 */
final class TlsCertificates {

    /** File names inside the directory given to {@link #writeTo}. */
    static final String CA_FILE = "ca.crt";
    static final String CERT_FILE = "server.crt";
    static final String KEY_FILE = "server.key";
    /** The password of the PKCS12 trust store: it guards nothing secret (only the CA's certificate is in it). */
    static final String TRUST_STORE_PASSWORD = "lodestar";

    private static final Duration VALIDITY = Duration.ofDays(30);
    private static final DateTimeFormatter UTC_TIME =
            DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);

    // Object identifiers, as DER contents.
    private static final byte[] ECDSA_WITH_SHA256 = oid(1, 2, 840, 10045, 4, 3, 2);
    private static final byte[] COMMON_NAME = oid(2, 5, 4, 3);
    private static final byte[] ORGANIZATION = oid(2, 5, 4, 10);
    private static final byte[] BASIC_CONSTRAINTS = oid(2, 5, 29, 19);
    private static final byte[] KEY_USAGE = oid(2, 5, 29, 15);
    private static final byte[] EXTENDED_KEY_USAGE = oid(2, 5, 29, 37);
    private static final byte[] SUBJECT_ALT_NAME = oid(2, 5, 29, 17);
    private static final byte[] SUBJECT_KEY_ID = oid(2, 5, 29, 14);
    private static final byte[] AUTHORITY_KEY_ID = oid(2, 5, 29, 35);
    private static final byte[] SERVER_AUTH = oid(1, 3, 6, 1, 5, 5, 7, 3, 1);

    private final X509Certificate ca;
    private final X509Certificate server;
    private final PrivateKey serverKey;

    private TlsCertificates(X509Certificate ca, X509Certificate server, PrivateKey serverKey) {
        this.ca = ca;
        this.server = server;
        this.serverKey = serverKey;
    }

    /**
     * Makes a new CA and a server certificate for 127.0.0.1, valid from an hour ago for 30 days.
     *
     * @throws IllegalStateException if the JDK lacks EC P-256 or SHA256withECDSA (every JDK 17 has them)
     */
    static TlsCertificates generate() {
        try {
            SecureRandom random = new SecureRandom();
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), random);
            KeyPair caKeys = generator.generateKeyPair();
            KeyPair serverKeys = generator.generateKeyPair();
            Instant now = Instant.now();
            byte[] caName = name("Lodestar Test CA " + Long.toHexString(random.nextLong()));
            byte[] serverName = name("127.0.0.1");

            // Key identifiers: strict verifiers (openssl -x509_strict, Python 3.13) require them.
            byte[] caKeyId = keyId(caKeys);
            byte[] caExtensions = seq(
                    extension(BASIC_CONSTRAINTS, true, seq(bool(true))),
                    extension(SUBJECT_KEY_ID, false, tlv(0x04, caKeyId)),
                    // keyCertSign and cRLSign (bits 5 and 6; one unused bit).
                    extension(KEY_USAGE, true, tlv(0x03, new byte[] {1, 0x06})));
            X509Certificate ca = sign(caName, caName, caKeys.getPublic().getEncoded(), caExtensions, caKeys, now,
                    random);

            byte[] serverExtensions = seq(
                    extension(BASIC_CONSTRAINTS, true, seq()),
                    extension(SUBJECT_KEY_ID, false, tlv(0x04, keyId(serverKeys))),
                    extension(AUTHORITY_KEY_ID, false, seq(tlv(0x80, caKeyId))), // keyIdentifier [0]
                    // digitalSignature (bit 0; seven unused bits): all ECDHE handshakes need.
                    extension(KEY_USAGE, true, tlv(0x03, new byte[] {7, (byte) 0x80})),
                    extension(EXTENDED_KEY_USAGE, false, seq(tlv(0x06, SERVER_AUTH))),
                    extension(SUBJECT_ALT_NAME, false, seq(
                            tlv(0x87, new byte[] {127, 0, 0, 1}), // iPAddress [7]
                            tlv(0x82, "localhost".getBytes(StandardCharsets.US_ASCII))))); // dNSName [2]
            X509Certificate server = sign(caName, serverName, serverKeys.getPublic().getEncoded(), serverExtensions,
                    caKeys, now, random);
            return new TlsCertificates(ca, server, serverKeys.getPrivate());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot make a test certificate with this JDK: " + e, e);
        }
    }

    /** The CA's certificate. */
    X509Certificate ca() {
        return ca;
    }

    /** The server's certificate, signed by {@link #ca()}. */
    X509Certificate server() {
        return server;
    }

    /**
     * Writes {@code ca.crt}, {@code server.crt} and {@code server.key} (PEM, the key as unencrypted PKCS#8,
     * readable by the owner only where the file system allows) into {@code dir}, which must exist.
     *
     * @throws UncheckedIOException if a file cannot be written
     */
    void writeTo(Path dir) {
        try {
            Files.writeString(dir.resolve(CA_FILE), pem("CERTIFICATE", ca.getEncoded()), StandardCharsets.US_ASCII);
            Files.writeString(dir.resolve(CERT_FILE), pem("CERTIFICATE", server.getEncoded()),
                    StandardCharsets.US_ASCII);
            Path key = Files.createFile(dir.resolve(KEY_FILE));
            try {
                Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException notPosix) {
                // The directory itself is private to the test; nothing more to do here.
            }
            Files.writeString(key, pem("PRIVATE KEY", serverKey.getEncoded()), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the test certificates to " + dir, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot encode a test certificate: " + e, e);
        }
    }

    /**
     * Writes a PKCS12 trust store holding the CA, password {@value #TRUST_STORE_PASSWORD}. Separate from
     * {@link #writeTo} because it is slow (the JDK derives two keys from the password, about half a second on a
     * cold JVM) and most tests never need it.
     *
     * @throws UncheckedIOException if the file cannot be written
     */
    void writeTrustStore(Path file) {
        try (OutputStream out = Files.newOutputStream(file)) {
            trustStore().store(out, TRUST_STORE_PASSWORD.toCharArray());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write a trust store to " + file, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot write a PKCS12 trust store with this JDK: " + e, e);
        }
    }

    /**
     * Sockets that trust only this CA, for the kit's own control connections. They do not check the host name:
     * the kit knows which process it talks to.
     */
    SSLSocketFactory socketFactory() {
        try {
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trustStore());
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context.getSocketFactory();
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("Cannot make an SSL context that trusts the test CA: " + e, e);
        }
    }

    private KeyStore trustStore() throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setCertificateEntry("lodestar-test-ca", ca);
        return store;
    }

    private static X509Certificate sign(byte[] issuer, byte[] subject, byte[] subjectPublicKeyInfo,
            byte[] extensions, KeyPair issuerKeys, Instant now, SecureRandom random) throws GeneralSecurityException {
        byte[] algorithm = seq(tlv(0x06, ECDSA_WITH_SHA256));
        byte[] tbs = seq(
                tlv(0xa0, integer(BigInteger.TWO)), // [0] version: v3
                integer(new BigInteger(63, random).add(BigInteger.ONE)),
                algorithm,
                issuer,
                seq(utcTime(now.minus(Duration.ofHours(1))), utcTime(now.plus(VALIDITY))),
                subject,
                subjectPublicKeyInfo,
                tlv(0xa3, extensions)); // [3] extensions
        Signature signature = Signature.getInstance("SHA256withECDSA");
        signature.initSign(issuerKeys.getPrivate(), random);
        signature.update(tbs);
        byte[] der = seq(tbs, algorithm, bitString(signature.sign()));
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        X509Certificate certificate = (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der));
        certificate.verify(issuerKeys.getPublic());
        return certificate;
    }

    /** A key identifier: the SHA-1 of the encoded public key (RFC 7093 allows any such hash). */
    private static byte[] keyId(KeyPair keys) throws GeneralSecurityException {
        return MessageDigest.getInstance("SHA-1").digest(keys.getPublic().getEncoded());
    }

    private static String pem(String type, byte[] der) {
        Base64.Encoder base64 = Base64.getMimeEncoder(64, new byte[] {'\n'});
        return "-----BEGIN " + type + "-----\n" + base64.encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    // A minimal DER encoder: just the types a certificate needs.

    private static byte[] name(String commonName) {
        return seq(
                set(seq(tlv(0x06, ORGANIZATION), tlv(0x0c, "Lodestar".getBytes(StandardCharsets.UTF_8)))),
                set(seq(tlv(0x06, COMMON_NAME), tlv(0x0c, commonName.getBytes(StandardCharsets.UTF_8)))));
    }

    private static byte[] extension(byte[] oid, boolean critical, byte[] value) {
        return critical ? seq(tlv(0x06, oid), bool(true), tlv(0x04, value)) : seq(tlv(0x06, oid), tlv(0x04, value));
    }

    private static byte[] utcTime(Instant instant) {
        return tlv(0x17, UTC_TIME.format(instant).getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] integer(BigInteger value) {
        return tlv(0x02, value.toByteArray());
    }

    private static byte[] bool(boolean value) {
        return tlv(0x01, new byte[] {(byte) (value ? 0xff : 0)});
    }

    private static byte[] bitString(byte[] bits) {
        byte[] contents = new byte[bits.length + 1]; // leading 0: no unused bits
        System.arraycopy(bits, 0, contents, 1, bits.length);
        return tlv(0x03, contents);
    }

    private static byte[] seq(byte[]... items) {
        return tlv(0x30, concat(items));
    }

    private static byte[] set(byte[]... items) {
        return tlv(0x31, concat(items));
    }

    private static byte[] concat(byte[]... items) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] item : items) {
            out.writeBytes(item);
        }
        return out.toByteArray();
    }

    /** Tag, definite length (short or long form), contents. */
    static byte[] tlv(int tag, byte[] contents) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        int length = contents.length;
        if (length < 0x80) {
            out.write(length);
        } else {
            int bytes = length > 0xffff ? 3 : length > 0xff ? 2 : 1;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(length >>> (8 * i));
            }
        }
        out.writeBytes(contents);
        return out.toByteArray();
    }

    /** The contents of an OBJECT IDENTIFIER: the first two arcs in one byte, the rest base-128. */
    static byte[] oid(long... arcs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeBase128(out, arcs[0] * 40 + arcs[1]);
        for (int i = 2; i < arcs.length; i++) {
            writeBase128(out, arcs[i]);
        }
        return out.toByteArray();
    }

    private static void writeBase128(ByteArrayOutputStream out, long value) {
        int groups = 1;
        while (value >>> (7 * groups) != 0) {
            groups++;
        }
        for (int i = groups - 1; i >= 0; i--) {
            int group = (int) (value >>> (7 * i)) & 0x7f;
            out.write(i == 0 ? group : group | 0x80);
        }
    }
}
