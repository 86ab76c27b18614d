package io.lodestar.redis;

import io.lodestar.core.ClientHealth;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.UnavailableException;
import io.lodestar.test.StallingRelay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.function.UnaryOperator;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A Redis that stops answering without closing anything (its process stopped with SIGSTOP, as a stuck fork or a VM
 * pause leaves it) is an outage too: views turn stale within the command timeout and health says why, writes and
 * connects fail within it, and after the thaw (SIGCONT) the views are fresh again. Every test thaws Redis after
 * itself, whatever happens, before the clients close.
 */
class FrozenRedisIT extends PrivateRedisTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final UnaryOperator<LodestarOptions.Builder> SHORT_TIMEOUT = options -> options
            .commandTimeout(TIMEOUT).reconcileInterval(Duration.ofHours(1));
    /** Longest a call may take here before the test fails instead of hanging: a few command timeouts. */
    private static final Duration NEVER_HANGS = Duration.ofSeconds(5);

    @Test
    void aViewOfAFrozenRedisTurnsStaleWithinTheCommandTimeoutAndHealthSaysWhy() {
        LodestarClient client = clients.connect(SHORT_TIMEOUT);
        client.registry().register(instance("orders", "orders-1"));
        assertThat(client.discovery().getInstances("orders")).hasSize(1);

        redis.freeze();

        await().atMost(Duration.ofSeconds(4)).until(() -> client.discovery().status().stale());
        ClientHealth health = client.health();
        assertThat(health.healthy()).isFalse();
        assertThat(health.nodes()).singleElement().satisfies(node -> {
            assertThat(node.connected()).isFalse();
            assertThat(node.problem()).isEqualTo("no answer from 127.0.0.1:" + redis.port() + " for 1 s");
        });
        assertThat(client.discovery().getInstances("orders")).as("the last known state, served").hasSize(1);
    }

    @Test
    void aWriteToAFrozenRedisFailsWithinTheCommandTimeout() {
        LodestarClient client = clients.connect(SHORT_TIMEOUT);

        redis.freeze();

        assertTimeoutPreemptively(NEVER_HANGS, () ->
                assertThatThrownBy(() -> client.registry().register(instance("orders", "orders-1")))
                        .isInstanceOf(UnavailableException.class));
    }

    @Test
    void creatingAClientAgainstAFrozenRedisFailsWithinTheCommandTimeout() {
        redisUri(); // started, so there is a process to freeze
        redis.freeze();

        assertTimeoutPreemptively(NEVER_HANGS, () ->
                assertThatThrownBy(() -> clients.connect(SHORT_TIMEOUT))
                        .isInstanceOf(UnavailableException.class)
                        .hasMessageContaining("Cannot connect to Redis"));
    }

    @Test
    void afterTheThawAViewIsFreshAgainAndFollowsChanges() {
        LodestarClient reader = clients.connect(SHORT_TIMEOUT);
        LodestarClient writer = clients.connect(SHORT_TIMEOUT);
        writer.registry().register(instance("orders", "orders-1"));
        assertThat(reader.discovery().getInstances("orders")).hasSize(1);
        redis.freeze();
        await().atMost(Duration.ofSeconds(4)).until(() -> reader.discovery().status().stale());

        redis.thaw();

        await().atMost(Duration.ofSeconds(2)).until(() -> !reader.discovery().status().stale()
                && reader.health().healthy());
        assertThat(reader.health().nodes()).singleElement().satisfies(node -> assertThat(node.problem()).isNull());
        writer.registry().register(instance("orders", "orders-2"));
        await().atMost(Duration.ofSeconds(2)).until(() -> reader.discovery().getInstances("orders").size() == 2);
    }

    @Test
    void aLinkThatStopsForwardingWithoutClosingMakesAViewStaleAndFreshAgainWhenItForwards() {
        try (StallingRelay link = StallingRelay.to(redis)) {
            LodestarClient client = clients.connect(link.uri(), SHORT_TIMEOUT);
            client.registry().register(instance("orders", "orders-1"));
            assertThat(client.discovery().getInstances("orders")).hasSize(1);

            link.stall();

            await().atMost(Duration.ofSeconds(4)).until(() -> client.discovery().status().stale());
            assertThat(client.health().nodes()).singleElement().satisfies(node ->
                    assertThat(node.problem()).startsWith("no answer from"));
            link.resume();
            await().atMost(Duration.ofSeconds(2)).until(() -> !client.discovery().status().stale());
            client.close(); // while the link still forwards: it deregisters
        }
    }

    /** Runs before the base class's: clients close, and Redis stops, only once Redis runs again. */
    @AfterEach
    void thawWhateverHappened() {
        redis.thaw();
    }
}
