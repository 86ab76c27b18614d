package io.lodestar.cli;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Who may ask the console what: the checks on a request's headers, without a server. */
class RequestGuardTest {
    private static final String WRITE = "write-token-1";
    private static final String READ = "read-token-1";
    private static final AllowedHosts LOOPBACK = AllowedHosts.of(InetAddress.getLoopbackAddress(), List.of());

    private final RequestGuard guard = new RequestGuard(new RequestGuard.Access(WRITE, READ, false, LOOPBACK));

    @Test
    void theReadTokenReadsButDoesNotWrite() {
        assertThat(guard.checkRead(READ)).isNull();
        assertThat(guard.checkWrite(READ)).extracting(RequestGuard.Refusal::status, RequestGuard.Refusal::reason)
                .containsExactly(401, "no valid token");
    }

    @Test
    void theWriteTokenReadsAndWrites() {
        assertThat(guard.checkRead(WRITE)).isNull();
        assertThat(guard.checkWrite(WRITE)).isNull();
    }

    @Test
    void noTokenOrAnotherReadsNothing() {
        assertThat(guard.checkRead(null)).extracting(RequestGuard.Refusal::status).isEqualTo(401);
        assertThat(guard.checkRead("write-token-2")).extracting(RequestGuard.Refusal::status).isEqualTo(401);
    }

    @Test
    void readOnlyRefusesEveryWriteWhateverTheToken() {
        RequestGuard readOnly = new RequestGuard(new RequestGuard.Access(WRITE, null, true, LOOPBACK));

        assertThat(readOnly.checkWrite(WRITE)).extracting(RequestGuard.Refusal::status, RequestGuard.Refusal::reason)
                .containsExactly(403, "read-only");
        assertThat(readOnly.checkRead(WRITE)).isNull();
    }

    @Test
    void aForeignHostOrOriginIsRefused() {
        assertThat(guard.checkOrigin("127.0.0.1:8080", null)).isNull();
        assertThat(guard.checkOrigin("127.0.0.1:8080", "http://localhost:8080")).isNull();
        assertThat(guard.checkOrigin("attacker.example", null)).extracting(RequestGuard.Refusal::status)
                .isEqualTo(403);
        assertThat(guard.checkOrigin("127.0.0.1:8080", "http://attacker.example"))
                .extracting(RequestGuard.Refusal::status).isEqualTo(403);
    }

    @Test
    void theOperatorsNameKeepsOnlyPlainCharactersAndAtMost64() {
        assertThat(RequestGuard.who("alice", "127.0.0.1")).isEqualTo("alice@127.0.0.1");
        assertThat(RequestGuard.who("eve\r\nAUDIT who=admin", "10.0.0.1")).isEqualTo("eve__AUDIT_who_admin@10.0.0.1");
        assertThat(RequestGuard.who(null, "127.0.0.1")).isEqualTo("anonymous@127.0.0.1");
        assertThat(RequestGuard.who("x".repeat(100), "127.0.0.1")).isEqualTo("x".repeat(64) + "@127.0.0.1");
    }

    @Test
    void theTokensNeverShowInTheAccessText() {
        assertThat(new RequestGuard.Access(WRITE, READ, false, LOOPBACK).toString()).doesNotContain(WRITE, READ);
    }
}
