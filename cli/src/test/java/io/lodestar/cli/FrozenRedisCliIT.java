package io.lodestar.cli;

import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A Redis that accepts connections but answers nothing (its process stopped with SIGSTOP): a command ends in about
 * the {@code --timeout} the user gave, not after Lettuce's one-minute handshake timeout. Redis is thawed after each
 * test, whatever happens.
 */
class FrozenRedisCliIT {
    /** Far below the minute a handshake used to take, far above a JVM start and the 1 s timeout. */
    private static final Duration NEVER_HANGS = Duration.ofSeconds(20);
    private final RedisServer redis = TestRedis.startStandalone();

    @AfterEach
    void stopRedis() {
        redis.thaw();
        redis.close();
    }

    @Test
    void aCommandAgainstAFrozenRedisFailsAsUnavailableWithinItsTimeout() {
        redis.freeze();

        CliJar.Result result = assertTimeoutPreemptively(NEVER_HANGS, () ->
                CliJar.run(Map.of(), "", "--uri", redis.uri(), "--timeout", "1s", "services"));

        assertThat(result.exitCode()).as(result.err()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(result.err()).contains("Cannot connect to Redis").doesNotContain("1 minute");
    }
}
