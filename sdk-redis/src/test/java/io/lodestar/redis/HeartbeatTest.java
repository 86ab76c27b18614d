package io.lodestar.redis;

import io.lodestar.redis.internal.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;

/** A 1 s timeout: a PING every 500 ms, silent after 1 s without an answer. */
class HeartbeatTest {
    private final ManualClock clock = new ManualClock();
    private final List<String> heard = new ArrayList<>();
    private boolean closed;
    private final Heartbeat<Connection> heartbeat = new Heartbeat<>(Duration.ofSeconds(1), clock, new Target(),
            () -> closed);

    /** A connection whose PINGs the test answers (or not). */
    static final class Connection {
        final String name;
        boolean open = true;
        boolean closedForGood;
        boolean answering = true;
        int pings;
        CompletableFuture<String> unanswered;

        Connection(String name) {
            this.name = name;
        }
    }

    private final class Target implements Heartbeat.Target<Connection> {
        @Override
        public boolean isClosed(Connection connection) {
            return connection.closedForGood;
        }

        @Override
        public boolean isOpen(Connection connection) {
            return connection.open;
        }

        @Override
        public CompletionStage<?> ping(Connection connection) {
            connection.pings++;
            if (connection.answering) {
                return CompletableFuture.completedFuture("PONG");
            }
            connection.unanswered = new CompletableFuture<>();
            return connection.unanswered;
        }

        @Override
        public void silent(Connection connection, Duration silentFor, long sinceNanos, boolean first) {
            heard.add("silent " + connection.name + " for " + silentFor.toMillis() + " ms since "
                    + sinceNanos / 1_000_000 + (first ? " first" : ""));
        }

        @Override
        public void answers(Connection connection, boolean last) {
            heard.add("answers " + connection.name + (last ? " last" : ""));
        }
    }

    @Test
    void pingsEveryHalfTimeoutBetween50MsAnd1s() {
        assertThat(new Heartbeat<>(Duration.ofSeconds(1), clock, new Target(), () -> false).intervalMillis())
                .isEqualTo(500);
        assertThat(new Heartbeat<>(Duration.ofMillis(40), clock, new Target(), () -> false).intervalMillis())
                .isEqualTo(50);
        assertThat(new Heartbeat<>(Duration.ofSeconds(30), clock, new Target(), () -> false).intervalMillis())
                .isEqualTo(1_000);
    }

    @Test
    void aConnectionThatAnswersEveryPingIsNeverSilent() {
        Connection connection = watched("a");

        clock.advance(Duration.ofSeconds(30));

        assertThat(connection.pings).isEqualTo(60);
        assertThat(heard).isEmpty();
        assertThat(heartbeat.silent()).isFalse();
    }

    @Test
    void aConnectionLeftUnansweredForTheTimeoutIsSilentOnce() {
        // given a connection Redis stops answering at 0
        Connection connection = watched("a");
        connection.answering = false;

        // when PINGs go unanswered for more than the timeout
        clock.advance(Duration.ofMillis(1_000));
        assertThat(heard).isEmpty();
        clock.advance(Duration.ofMillis(500));

        // then it is silent, once, however long it stays so
        assertThat(heard).containsExactly("silent a for 1000 ms since 0 first");
        assertThat(heartbeat.silent()).isTrue();
        clock.advance(Duration.ofSeconds(10));
        assertThat(heard).hasSize(1);
        assertThat(connection.pings).as("one PING waits at a time").isEqualTo(1);
    }

    @Test
    void theFirstAnswerEndsTheSilence() {
        Connection connection = watched("a");
        connection.answering = false;
        clock.advance(Duration.ofSeconds(2));

        connection.unanswered.complete("PONG");

        assertThat(heard).containsExactly("silent a for 1000 ms since 0 first", "answers a last");
        assertThat(heartbeat.silent()).isFalse();
    }

    @Test
    void onlyTheFirstSilentAndTheLastAnsweringConnectionSaySo() {
        Connection a = watched("a");
        Connection b = watched("b");
        a.answering = false;
        b.answering = false;
        clock.advance(Duration.ofSeconds(2));

        a.unanswered.complete("PONG");
        b.unanswered.complete("PONG");

        // one beat finds both silent, in no particular order (connections are kept by identity): one says first
        assertThat(heard.subList(0, 2)).containsExactlyInAnyOrder(
                "silent a for 1000 ms since 0" + (heard.get(0).startsWith("silent a") ? " first" : ""),
                "silent b for 1000 ms since 0" + (heard.get(0).startsWith("silent b") ? " first" : ""));
        assertThat(heard.subList(2, heard.size())).containsExactly("answers a", "answers b last");
    }

    @Test
    void aLostConnectionIsNotPingedAndItsClockWaits() {
        // given a connection that is lost (Lettuce reconnects it) for 10 s
        Connection connection = watched("a");
        connection.open = false;
        clock.advance(Duration.ofSeconds(10));

        // when it is back and answers
        connection.open = true;
        heartbeat.reconnected(connection);
        clock.advance(Duration.ofSeconds(2));

        // then its 10 s away never counted as silence
        assertThat(heard).isEmpty();
        assertThat(connection.pings).isEqualTo(4);
    }

    @Test
    void aConnectionClosedForGoodIsForgotten() {
        Connection connection = watched("a");
        connection.answering = false;
        clock.advance(Duration.ofSeconds(2));

        connection.closedForGood = true;
        clock.advance(Duration.ofSeconds(1));

        assertThat(heartbeat.silent()).isFalse();
        connection.closedForGood = false;
        clock.advance(Duration.ofSeconds(10));
        assertThat(heard).hasSize(1);
    }

    @Test
    void aClosedClientPingsNothingAndSchedulesNothing() {
        Connection connection = watched("a");
        clock.advance(Duration.ofMillis(500));

        closed = true;
        clock.advance(Duration.ofSeconds(5));

        assertThat(connection.pings).isEqualTo(1);
        assertThat(clock.pending()).isZero();
    }

    private Connection watched(String name) {
        Connection connection = new Connection(name);
        heartbeat.watch(connection);
        heartbeat.start();
        return connection;
    }
}
