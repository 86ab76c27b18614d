package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The hand-made certificates are ones JSSE accepts: a valid chain, a server certificate for 127.0.0.1. */
class TlsCertificatesTest {

    @Test
    void theServerCertificateChainsToTheCa() throws Exception {
        // given
        TlsCertificates certificates = TlsCertificates.generate();
        X509Certificate server = certificates.server();

        // when
        PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(certificates.ca(), null)));
        parameters.setRevocationEnabled(false);
        CertPathValidator.getInstance("PKIX").validate(
                CertificateFactory.getInstance("X.509").generateCertPath(List.of(server)), parameters);

        // then
        server.checkValidity();
        assertThat(certificates.ca().getBasicConstraints()).isGreaterThanOrEqualTo(0);
        assertThat(server.getBasicConstraints()).isEqualTo(-1);
        assertThat(server.getSubjectAlternativeNames())
                .containsExactlyInAnyOrder(List.of(7, "127.0.0.1"), List.of(2, "localhost"));
        assertThat(server.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
    }

    @Test
    void eachCallMakesANewCa() {
        assertThat(TlsCertificates.generate().ca().getSubjectX500Principal())
                .isNotEqualTo(TlsCertificates.generate().ca().getSubjectX500Principal());
    }

    @Test
    void encodesDerLengthsAndObjectIdentifiers() {
        assertThat(TlsCertificates.tlv(0x04, new byte[2])).containsExactly(0x04, 2, 0, 0);
        assertThat(TlsCertificates.tlv(0x04, new byte[200])).startsWith(0x04, 0x81, 200);
        assertThat(TlsCertificates.tlv(0x04, new byte[300])).startsWith(0x04, 0x82, 1, 44);
        // 1.2.840.10045.4.3.2 (ecdsa-with-SHA256)
        assertThat(TlsCertificates.oid(1, 2, 840, 10045, 4, 3, 2))
                .containsExactly(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02);
    }
}
