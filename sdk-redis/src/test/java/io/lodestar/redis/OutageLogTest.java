package io.lodestar.redis;

import io.lodestar.redis.internal.time.ManualClock;
import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class OutageLogTest {
    private final ManualClock clock = new ManualClock();
    private final Recording recording = new Recording();
    private final OutageLog outages = new OutageLog(clock, "redis://h:6379", recording);
    private final Object command = new Object();
    private final Object pubSub = new Object();

    @Test
    void anOutageIsOneWarnWhenItBeginsAndOneInfoWhenItEndsPerKind() {
        // given both connections lost, and reconnects failing for 20 s
        outages.lost(OutageLog.Kind.COMMAND, command, "h:6379", "connection closed", false);
        outages.lost(OutageLog.Kind.PUBSUB, pubSub, "h:6379", "connection closed", false);
        for (int i = 0; i < 40; i++) {
            clock.advance(Duration.ofMillis(500));
            outages.reconnectFailed();
        }

        // when they are back
        outages.back(OutageLog.Kind.COMMAND, command, "h:6379");
        outages.back(OutageLog.Kind.PUBSUB, pubSub, "h:6379");

        // then
        assertThat(recording.above(Level.DEBUG)).containsExactly(
                "WARN Lost the command connection to Redis at h:6379 (connection closed): reconnecting in the"
                        + " background; views serve what they hold and say they are stale until it is back (one line"
                        + " when it is back; details at DEBUG)",
                "WARN Lost the PubSub connection to Redis at h:6379 (connection closed): reconnecting in the"
                        + " background; views serve what they hold and say they are stale until it is back (one line"
                        + " when it is back; details at DEBUG)",
                "INFO Redis outage of the command connection over: the last lost one (to h:6379) is back after"
                        + " 20000 ms (40 failed reconnects)",
                "INFO Redis outage of the PubSub connection over: the last lost one (to h:6379) is back after"
                        + " 20000 ms (40 failed reconnects)");
    }

    @Test
    void aConnectionBackAtItsFirstReconnectIsNoOutage() {
        outages.lost(OutageLog.Kind.PUBSUB, pubSub, "h:6379", "connection closed", false);
        clock.advance(Duration.ofMillis(3));

        outages.back(OutageLog.Kind.PUBSUB, pubSub, "h:6379");

        assertThat(recording.above(Level.DEBUG)).isEmpty();
    }

    @Test
    void aConnectionLeftWithoutAnswersIsAnOutageAtOnce() {
        outages.lost(OutageLog.Kind.COMMAND, command, "h:6379", "no answer from h:6379 for 5 s", true);

        assertThat(recording.above(Level.DEBUG)).singleElement().asString()
                .startsWith("WARN Lost the command connection to Redis at h:6379 (no answer from h:6379 for 5 s)");
    }

    @Test
    void theOutageEndsWithTheLastConnectionOfItsKind() {
        Object otherNode = new Object();
        outages.lost(OutageLog.Kind.PUBSUB, pubSub, "a:1", "connection closed", false);
        outages.lost(OutageLog.Kind.PUBSUB, otherNode, "b:2", "connection closed", false);
        outages.reconnectFailed();

        outages.back(OutageLog.Kind.PUBSUB, pubSub, "a:1");
        assertThat(recording.above(Level.DEBUG)).hasSize(1);
        outages.closed(otherNode, "b:2"); // its node left the cluster

        assertThat(recording.above(Level.DEBUG)).hasSize(2).last().asString()
                .startsWith("INFO Redis outage of the PubSub connection over: the last lost one (to b:2) was closed"
                        + " for good");
    }

    @Test
    void aConnectionThatWasNotLostChangesNothing() {
        outages.back(OutageLog.Kind.COMMAND, command, "h:6379");
        outages.closed(command, "h:6379");
        outages.reconnectFailed();

        assertThat(recording.above(Level.DEBUG)).isEmpty();
    }

    /** Keeps every line, formatted, with its level. */
    private static final class Recording extends LegacyAbstractLogger {
        private final List<String> lines = new ArrayList<>();
        private final List<Level> levels = new ArrayList<>();

        List<String> above(Level level) {
            List<String> above = new ArrayList<>();
            for (int i = 0; i < lines.size(); i++) {
                if (levels.get(i).toInt() > level.toInt()) {
                    above.add(lines.get(i));
                }
            }
            return above;
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
                                                   Throwable throwable) {
            levels.add(level);
            lines.add(level + " " + MessageFormatter.basicArrayFormat(pattern, arguments));
        }

        @Override
        public boolean isTraceEnabled() {
            return true;
        }

        @Override
        public boolean isDebugEnabled() {
            return true;
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }
    }
}
