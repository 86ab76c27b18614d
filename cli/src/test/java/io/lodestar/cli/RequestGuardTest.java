package io.lodestar.cli;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Who may ask the console what: the checks on a request's headers and its user's role, without a server. */
class RequestGuardTest {
    private static final String WRITE = "write-token-1";
    private static final String READ = "read-token-1";
    private static final AllowedHosts LOOPBACK = AllowedHosts.of(InetAddress.getLoopbackAddress(), List.of());

    private final RequestGuard guard = new RequestGuard(new RequestGuard.Access(Users.ofTokens(WRITE, READ), false,
            LOOPBACK));

    @Test
    void theReadTokenReadsButDoesNotWrite() {
        Users.User reader = guard.user(READ);

        assertThat(guard.checkRead(reader, "prod")).isNull();
        assertThat(guard.checkWrite(reader, "prod", Users.Role.WRITE))
                .extracting(RequestGuard.Refusal::status, RequestGuard.Refusal::reason)
                .containsExactly(403, "needs write, has read");
    }

    @Test
    void theWriteTokenReadsWritesAndRemoves() {
        Users.User writer = guard.user(WRITE);

        assertThat(guard.checkRead(writer, "prod")).isNull();
        assertThat(guard.checkWrite(writer, "prod", Users.Role.ADMIN)).isNull();
    }

    @Test
    void noTokenOrAnotherReadsNothing() {
        assertThat(guard.checkRead(guard.user(null), "prod")).extracting(RequestGuard.Refusal::status).isEqualTo(401);
        assertThat(guard.checkRead(guard.user("write-token-2"), "prod")).extracting(RequestGuard.Refusal::status)
                .isEqualTo(401);
    }

    @Test
    void aUserWithoutARoleInTheNamespaceSeesNothingOfIt() {
        Users.User alice = new Users.User("alice", Map.of("staging", Users.Role.ADMIN));

        assertThat(guard.checkRead(alice, "prod")).extracting(RequestGuard.Refusal::status,
                RequestGuard.Refusal::message).containsExactly(403, "alice may not see namespace prod");
        assertThat(guard.checkRead(alice, "staging")).isNull();
    }

    @Test
    void aWriteNeedsTheRoleItsActionNeeds() {
        Users.User bob = new Users.User("bob", Map.of("*", Users.Role.WRITE));

        assertThat(guard.checkWrite(bob, "prod", Users.Role.WRITE)).isNull();
        assertThat(guard.checkWrite(bob, "prod", Users.Role.ADMIN)).extracting(RequestGuard.Refusal::status,
                RequestGuard.Refusal::message)
                .containsExactly(403, "this needs the role admin in namespace prod, and bob has write");
    }

    @Test
    void readOnlyRefusesEveryWriteWhateverTheRole() {
        RequestGuard readOnly = new RequestGuard(new RequestGuard.Access(Users.ofTokens(WRITE, null), true,
                LOOPBACK));

        assertThat(readOnly.checkWrite(readOnly.user(WRITE), "prod", Users.Role.WRITE))
                .extracting(RequestGuard.Refusal::status, RequestGuard.Refusal::reason)
                .containsExactly(403, "read-only");
        assertThat(readOnly.checkRead(readOnly.user(WRITE), "prod")).isNull();
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
    void theAuditNamesTheAuthenticatedUserOrAnonymous() {
        assertThat(RequestGuard.who(guard.user(READ), "127.0.0.1")).isEqualTo("read-token@127.0.0.1");
        assertThat(RequestGuard.who(null, "10.0.0.1")).isEqualTo("anonymous@10.0.0.1");
    }
}
