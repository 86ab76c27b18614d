package io.lodestar.examples;

import io.lodestar.core.Lodestar;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The README's main command: the demo tells the failure story it promises, and leaves no Redis behind. */
class DemoIT {
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

    @Test
    void withItsOwnRedisTheDemoShowsTheViewServingStaleAFastFailingWriteAndTheViewHealing() {
        Set<Long> redisBefore = redisProcessesOfThisJvm();

        Demo.Outcome outcome = Demo.runWithPrivateRedis(out);

        assertThat(outcome.viewRead()).as("median view read").isPositive();
        assertThat(outcome.directRead()).as("median direct read").isPositive();
        assertThat(outcome.outageShown()).as("the demo killed and restarted its Redis").isTrue();
        assertThat(outcome.staleDuringOutage()).as("the view reported stale during the outage").isTrue();
        assertThat(outcome.staleFor()).as("the staleness age reported").isPositive();
        assertThat(outcome.servedDuringOutage()).as("instances the view served during the outage").isEqualTo(3);
        assertThat(outcome.writeFailure()).as("what the write during the outage threw")
                .isInstanceOf(UnavailableException.class)
                .hasMessageContaining("register orders/orders-d")
                .hasMessageContaining("is unreachable");
        assertThat(outcome.writeFailedAfter()).isNotNull();
        assertThat(outcome.freshAfterRestart()).as("the view was fresh again after the restart").isTrue();
        assertThat(outcome.servedAfterRestart()).containsExactly("orders-a", "orders-b", "orders-c");
        assertThat(outcome.fewestDuringRestart()).as("Redis lost the instances; the view kept them for their owner")
                .isEqualTo(3);
        assertThat(outcome.removalsDuringRestart()).as("removals the gateway's listener heard").isZero();
        assertThat(printed()).contains("view (discovery()):", "direct (directDiscovery()):", "7. Redis is killed", "stale=true", "threw UnavailableException",
                "view fresh again", "healthy=true");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> // the kit's watchdog ends within 1 s of Redis
                assertThat(redisProcessesOfThisJvm()).as("redis-server processes started by this JVM")
                        .isSubsetOf(redisBefore));
    }

    @Test
    void withARedisItDidNotStartTheDemoSkipsTheOutageRunsAgainOnTheSameDataAndLeavesThatRedisRunning() {
        try (RedisServer users = TestRedis.startStandalone()) {
            Demo.run(users.uri(), null, new PrintStream(OutputStream.nullOutputStream())); // a run before: its data

            Demo.Outcome outcome = Demo.run(users.uri(), null, out);

            assertThat(outcome.outageShown()).isFalse();
            assertThat(outcome.writeFailure()).isNull();
            assertThat(printed()).contains("The outage (steps 7-10) is skipped").doesNotContain("Redis is killed");
            try (LodestarClient after = Lodestar.connect(LodestarOptions.builder(users.uri()).namespace("after")
                    .build())) {
                assertThat(after.config().set("still", "up", ConfigFormat.TEXT).version()).isEqualTo(1);
            }
        }
    }

    private String printed() {
        return printed.toString(StandardCharsets.UTF_8);
    }

    /** The kit runs redis-server under a watchdog shell: both name redis-server in their command lines. */
    private static Set<Long> redisProcessesOfThisJvm() {
        return ProcessHandle.current().descendants()
                .filter(process -> process.info().commandLine().orElse("").contains("redis-server"))
                .map(ProcessHandle::pid).collect(Collectors.toSet());
    }
}
