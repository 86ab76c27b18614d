package io.lodestar.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The users file: who signs in with which token, and with which role in which namespace. */
class UsersTest {
    private static final String ALICE_AND_BOB = """
            users:
              alice: {token: alice-token-1, roles: {prod: read}}
              bob: {token: bob-token-12, roles: {prod: admin}}
            """;

    @TempDir
    Path dir;

    private Path file(String yaml) throws IOException {
        return TestUsers.file(dir, yaml);
    }

    @Test
    void aTokenNamesItsUserWithTheirRolesPerNamespace() throws Exception {
        Users users = Users.load(file("""
                users:
                  alice:
                    token: alice-token-1
                    roles: {prod: read, staging: admin}
                  bob:
                    token: %s
                    roles: {"*": write}
                """.formatted(TestUsers.sha256("bob-token-12"))));

        Users.User alice = users.authenticate("alice-token-1");
        Users.User bob = users.authenticate("bob-token-12");

        assertThat(alice.name()).isEqualTo("alice");
        assertThat(alice.roleIn("prod")).isEqualTo(Users.Role.READ);
        assertThat(alice.roleIn("staging")).isEqualTo(Users.Role.ADMIN);
        assertThat(alice.roleIn("dev")).isNull();
        assertThat(bob.roles()).isEqualTo(Map.of("*", Users.Role.WRITE));
        assertThat(bob.roleIn("dev")).isEqualTo(Users.Role.WRITE);
        assertThat(users.authenticate("nobody-token")).isNull();
        assertThat(users.authenticate(null)).isNull();
    }

    @Test
    void aNamespacesOwnRoleWinsOverTheRoleForEveryNamespace() throws Exception {
        Users users = Users.load(file("""
                users:
                  carol: {token: carol-token-1, roles: {"*": read, prod: admin}}
                """));

        assertThat(users.authenticate("carol-token-1").roleIn("prod")).isEqualTo(Users.Role.ADMIN);
        assertThat(users.authenticate("carol-token-1").roleIn("dev")).isEqualTo(Users.Role.READ);
    }

    @Test
    void everyBrokenRuleIsNamedAndNoTokenIsShown() throws Exception {
        Path file = file("""
                users:
                  alice: {token: short, roles: {prod: owner}}
                  "bad name": {token: long-enough-token, roles: {prod: read}}
                  dave: {token: "sha256:abc", roles: {}, email: dave@example.com}
                """);

        assertThatThrownBy(() -> Users.load(file)).isInstanceOf(ExitCodes.UsageException.class)
                .hasMessageContaining("the users file " + file + ": ")
                .hasMessageContaining("users.alice.token must be at least 8 characters long, but was 5 characters"
                        + " long")
                .hasMessageContaining("users.alice.roles.prod must be read, write or admin, but was 'owner'")
                .hasMessageContaining("a user name must be 1 to 64 letters, digits or ._@- (starting with a letter"
                        + " or digit), but was 'bad name'")
                .hasMessageContaining("users.dave.email is not a field of a user (token, roles)")
                .hasMessageContaining("users.dave.token must be sha256: and 64 hex digits, but was not")
                .hasMessageContaining("users.dave.roles must map namespaces")
                .message().doesNotContain("short").doesNotContain("long-enough-token");
    }

    @Test
    void twoUsersWithOneTokenAreRefused() throws Exception {
        Path file = file("""
                users:
                  alice: {token: shared-token-1, roles: {prod: read}}
                  bob: {token: shared-token-1, roles: {prod: admin}}
                """);

        assertThatThrownBy(() -> Users.load(file)).hasMessageContaining(
                "users.bob.token must differ from every other user's token, but was the same as alice's");
    }

    @Test
    void aFileOthersMayReadIsRefused() throws Exception {
        Path file = file("users: {alice: {token: alice-token-1, roles: {prod: read}}}");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));

        assertThatThrownBy(() -> Users.load(file)).isInstanceOf(ExitCodes.UsageException.class)
                .hasMessage("the users file " + file + " must be accessible to its owner only (chmod 600), but was"
                        + " rw-r-----");
    }

    @Test
    void aFileWithoutUsersIsRefused() throws Exception {
        Path file = file("people: []");

        assertThatThrownBy(() -> Users.load(file))
                .hasMessage("the users file " + file + ": users must be a map of at least one user, but was absent");
    }

    @Test
    void theUsersTextShowsNamesAndRolesButNoToken() throws Exception {
        Users users = Users.load(file("users: {alice: {token: alice-token-1, roles: {prod: read}}}"));

        assertThat(users.toString()).contains("alice", "READ").doesNotContain("alice-token-1");
    }

    @Test
    void aUserRemovedFromAWatchedFileIsRefusedAtTheNextCheck() throws Exception {
        // given a watched file with alice and bob, checked on every request
        Path file = file(ALICE_AND_BOB);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Users users = Users.watch(file, Duration.ZERO, new PrintStream(log, true, StandardCharsets.UTF_8));
        assertThat(users.authenticate("bob-token-12")).isNotNull();

        // when bob is removed from it
        Files.writeString(file, "users: {alice: {token: alice-token-1, roles: {prod: read}}}\n");

        // then bob is refused, alice still signs in, and the log says the file changed
        assertThat(users.authenticate("bob-token-12")).isNull();
        assertThat(users.authenticate("alice-token-1").name()).isEqualTo("alice");
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("the users file " + file + " changed: 1 users");
    }

    @Test
    void anInvalidEditOfAWatchedFileKeepsTheUsersReadBeforeAndWarnsOnce() throws Exception {
        // given a watched file with alice and bob, checked on every request
        Path file = file(ALICE_AND_BOB);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Users users = Users.watch(file, Duration.ZERO, new PrintStream(log, true, StandardCharsets.UTF_8));

        // when an edit breaks a rule (and the file is asked about twice)
        Files.writeString(file, "users: {alice: {token: short, roles: {prod: read}}}\n");
        Users.User alice = users.authenticate("alice-token-1");
        Users.User bob = users.authenticate("bob-token-12");

        // then both keep signing in, and one WARN names what is wrong (never a token)
        assertThat(alice).isNotNull();
        assertThat(bob).isNotNull();
        String warned = log.toString(StandardCharsets.UTF_8);
        assertThat(warned).contains("WARN the users file " + file + ": users.alice.token must be at least 8"
                + " characters long, but was 5 characters long; the 2 users read before stay in force")
                .doesNotContain("short");
        assertThat(warned.lines().filter(line -> line.contains("WARN"))).hasSize(1);
    }

    @Test
    void aWatchedFileMadeReadableToOthersIsNotUsedAndItsUsersStay() throws Exception {
        Path file = file(ALICE_AND_BOB);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Users users = Users.watch(file, Duration.ZERO, new PrintStream(log, true, StandardCharsets.UTF_8));

        // when bob is removed, but the file is made readable to others
        Files.writeString(file, "users: {alice: {token: alice-token-1, roles: {prod: read}}}\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

        // then the new version is not used: bob still signs in, and the log says why
        assertThat(users.authenticate("bob-token-12")).isNotNull();
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("must be accessible to its owner only");
    }
}
