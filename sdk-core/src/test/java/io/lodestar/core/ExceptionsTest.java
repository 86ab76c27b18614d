package io.lodestar.core;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExceptionsTest {
    private static final Violation PORT = new Violation("port", "0", "between 1 and 65535");
    private static final Violation WEIGHT = new Violation("weight", "-1", "between 0 and 10000");

    @Test
    void everyFamilyIsAnUncheckedLodestarException() {
        assertThat(LodestarException.class).isAssignableFrom(InvalidArgumentException.class)
                .isAssignableFrom(NotFoundException.class)
                .isAssignableFrom(ConflictException.class)
                .isAssignableFrom(UnavailableException.class)
                .isAssignableFrom(ScriptException.class)
                .isAssignableFrom(AccessDeniedException.class)
                .isAssignableFrom(ClientClosedException.class);
        assertThat(RuntimeException.class).isAssignableFrom(LodestarException.class);
    }

    @Test
    void aClosedClientNamesItsNamespaceAndSaysWhatToDo() {
        ClientClosedException e = new ClientClosedException("prod", "redis://***@h:6379");

        assertThat(e).hasMessage("The Lodestar client of namespace 'prod' (Redis at redis://***@h:6379) is closed;"
                + " create a new client");
        assertThat(e.namespace()).isEqualTo("prod");
        assertThat(e).isNotInstanceOf(UnavailableException.class);
    }

    @Test
    void aTimeoutIsAKindOfUnavailability() {
        assertThat(UnavailableException.class).isAssignableFrom(CommandTimeoutException.class);
    }

    @Test
    void lodestarExceptionKeepsMessageAndCause() {
        IllegalStateException cause = new IllegalStateException("io");

        LodestarException e = new LodestarException("boom", cause);

        assertThat(e).hasMessage("boom").hasCause(cause);
        assertThat(new LodestarException("plain")).hasMessage("plain").hasNoCause();
    }

    @Nested
    class InvalidArgument {
        @Test
        void joinsEveryViolationInOrder() {
            InvalidArgumentException e = new InvalidArgumentException(List.of(PORT, WEIGHT));

            assertThat(e).hasMessage("port must be between 1 and 65535, but was 0; "
                    + "weight must be between 0 and 10000, but was -1");
            assertThat(e.violations()).containsExactly(PORT, WEIGHT);
        }

        @Test
        void acceptsASingleViolation() {
            InvalidArgumentException e = new InvalidArgumentException(PORT);

            assertThat(e).hasMessage("port must be between 1 and 65535, but was 0");
            assertThat(e.violations()).containsExactly(PORT);
        }

        @Test
        void needsAtLeastOneViolation() {
            assertThatThrownBy(() -> new InvalidArgumentException(List.of()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at least one violation");
        }

        @Test
        void copiesTheViolations() {
            List<Violation> source = new ArrayList<>(List.of(PORT));
            InvalidArgumentException e = new InvalidArgumentException(source);

            source.add(WEIGHT);

            assertThat(e.violations()).containsExactly(PORT);
            assertThatThrownBy(() -> e.violations().add(WEIGHT)).isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Nested
    class NotFound {
        @Test
        void carriesKindAndId() {
            NotFoundException e = new NotFoundException("instance", "orders/orders-1",
                    "No instance 'orders/orders-1' to renew");

            assertThat(e.kind()).isEqualTo("instance");
            assertThat(e.id()).isEqualTo("orders/orders-1");
            assertThat(e).hasMessage("No instance 'orders/orders-1' to renew");
        }
    }

    @Nested
    class Conflict {
        @Test
        void namesBothVersions() {
            ConflictException e = new ConflictException("orders/db.yaml", 3, 4);

            assertThat(e).hasMessage("Conflict on 'orders/db.yaml': expected version 3 but the current version is 4");
            assertThat(e.id()).isEqualTo("orders/db.yaml");
            assertThat(e.expectedVersion()).isEqualTo(3);
            assertThat(e.currentVersion()).isEqualTo(4);
        }
    }

    @Nested
    class Unavailable {
        @Test
        void keepsTheClientFailure() {
            RuntimeException cause = new RuntimeException("connection refused");

            assertThat(new UnavailableException("Cannot register orders/orders-1", cause))
                    .hasMessage("Cannot register orders/orders-1").hasCause(cause);
        }

        @Test
        void timeoutSaysWhatTimedOutAndTheBound() {
            RuntimeException cause = new RuntimeException("late");

            CommandTimeoutException e = new CommandTimeoutException("register orders/orders-1", Duration.ofMillis(250),
                    cause);

            assertThat(e).hasMessage("register orders/orders-1 timed out after 250 ms").hasCause(cause);
            assertThat(e.timeout()).isEqualTo(Duration.ofMillis(250));
        }
    }

    @Nested
    class Script {
        @Test
        void carriesTheScriptNameAndRedisError() {
            RuntimeException cause = new RuntimeException("WRONGTYPE");

            ScriptException e = new ScriptException("register_instance", "Key has the wrong type", cause);

            assertThat(e.script()).isEqualTo("register_instance");
            assertThat(e).hasMessage("Key has the wrong type").hasCause(cause);
        }
    }
}
