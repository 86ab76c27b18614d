package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis outage writes one WARN when it begins and one INFO when it ends, per connection kind (command, PubSub),
 * and nothing else above DEBUG from Lodestar, however long it lasts; a connection dropped while Redis stays reachable
 * is no outage (docs/redis.md, "When Redis misbehaves").
 * The log is read from slf4j-simple's output (System.err, looked up at every line).
 */
class OutageLogIT extends PrivateRedisTest {
    /** Longer than a few reconnect attempts and heartbeats, so a line per attempt would show. */
    private static final Duration OUTAGE = Duration.ofSeconds(4);

    enum Fault {
        KILLED(RedisServer::kill, RedisServer::restart),
        FROZEN(RedisServer::freeze, RedisServer::thaw);

        final Consumer<RedisServer> begin;
        final Consumer<RedisServer> end;

        Fault(Consumer<RedisServer> begin, Consumer<RedisServer> end) {
            this.begin = begin;
            this.end = end;
        }
    }

    private LogCapture log;

    @BeforeEach
    void captureTheLog() {
        log = LogCapture.start();
    }

    @AfterEach
    void stopCapturing() {
        log.close();
    }

    @ParameterizedTest
    @EnumSource(Fault.class)
    void anOutageLogsOneWarnWhenItBeginsAndOneInfoWhenItEndsPerConnectionKind(Fault fault) {
        // given a client with its command and PubSub connections up
        LodestarClient client = clients.connect(options -> options.commandTimeout(Duration.ofSeconds(1)));
        client.discovery().getInstances("orders");
        int before = log.mark();

        // when Redis is away for a while, then back
        fault.begin.accept(redis);
        await().atMost(Duration.ofSeconds(5)).until(() -> client.discovery().status().stale());
        await().during(OUTAGE).atMost(OUTAGE.plusSeconds(2)).until(() -> client.discovery().status().stale());
        fault.end.accept(redis);
        await().atMost(Duration.ofSeconds(5)).until(() -> !client.discovery().status().stale());
        await().atMost(Duration.ofSeconds(5)).until(() -> lodestar(log.linesSince(before), " INFO ").size() >= 2);

        // then
        List<String> logged = log.linesSince(before);
        List<String> warnings = lodestar(logged, " WARN ");
        assertThat(warnings).as("Lodestar's WARN lines").hasSize(2);
        assertThat(warnings).filteredOn(line -> line.contains("Lost the command connection")).hasSize(1);
        assertThat(warnings).filteredOn(line -> line.contains("Lost the PubSub connection")).hasSize(1);
        assertThat(lodestar(logged, " ERROR ")).isEmpty();
        List<String> ends = lodestar(logged, " INFO ").stream().filter(line -> line.contains("outage")).toList();
        assertThat(ends).as("Lodestar's INFO lines on the outage's end").hasSize(2);
        assertThat(ends).filteredOn(line -> line.contains("of the command connection over")).hasSize(1);
        assertThat(ends).filteredOn(line -> line.contains("of the PubSub connection over")).hasSize(1);
    }

    @Test
    void aConnectionDroppedWhileRedisStaysReachableIsNoOutageAndLogsNoWarn() {
        // given a client with its PubSub connection up
        LodestarClient client = clients.connect(options -> options.commandTimeout(Duration.ofSeconds(1)));
        client.discovery().getInstances("orders");
        int before = log.mark();

        // when Redis closes it (a CLIENT KILL, an output buffer limit) and Lettuce reconnects at once
        assertThat(redis.disconnectClients("pubsub")).isPositive();
        await().atMost(Duration.ofSeconds(5)).until(() -> !client.discovery().status().stale()
                && client.health().healthy());
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> client.health().healthy());

        // then
        assertThat(lodestar(log.linesSince(before), " WARN ")).isEmpty();
    }

    private static List<String> lodestar(List<String> lines, String level) {
        return lines.stream().filter(line -> line.contains(level) && line.contains(" io.lodestar.")).toList();
    }
}
