package io.lodestar.redis;

import io.lettuce.core.api.sync.RedisCommands;
import io.lodestar.core.LodestarClient;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every key the sweep keeps for itself, written as another type by another program, stops at most its own concern
 * for at most one interval: the script that finds it replaces it, says so, and the crashed owner's instance still
 * expires within TTL + a sweep interval (and the interval the repair may cost). The cases run at the same time (see
 * junit-platform.properties): each corrupts and sweeps only its own namespace's keys, and waits out a TTL.
 */
class CorruptSweepKeysIT extends NamespaceTest {
    private static final Duration TTL = Duration.ofSeconds(1);
    private static final Duration SWEEP = Duration.ofMillis(500);

    /** A key of the sweep's own state, and the type Lodestar keeps there. */
    enum SweepKey {
        LOCK("string", Keys::sweeperLock),
        FULL_PASS("string", Keys::fullSweep),
        OUTAGES("string", Keys::outage),
        DUE_SET("zset", keys -> keys.service("orders").due()),
        MASTER("hash", keys -> keys.master(Keys.bucket("orders")));

        final String type;
        final Function<Keys, String> name;

        SweepKey(String type, Function<Keys, String> name) {
            this.type = type;
            this.name = name;
        }
    }

    static Stream<Arguments> everySweepKeyAsEveryOtherType() {
        return Stream.of(SweepKey.values()).flatMap(key -> Stream.of("string", "hash", "list", "set", "zset")
                .filter(type -> !type.equals(key.type)).map(type -> Arguments.of(key, type)));
    }

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @ParameterizedTest(name = "{0} as a {1}")
    @Execution(ExecutionMode.CONCURRENT)
    @MethodSource("everySweepKeyAsEveryOtherType")
    void aSweepKeyOfAnotherTypeIsReplacedAndExpiryGoesOn(SweepKey kind, String type) {
        // given a crashed owner's instance, and the key written as another type after it registered
        LodestarClient owner = clients.connect(options -> options.deregisterOnClose(false));
        owner.registry().register(instance("orders", "orders-1").toBuilder().ttl(TTL).build());
        owner.close();
        String key = kind.name.apply(keys());
        redis().del(key);
        write(redis(), key, type);

        // when a client sweeps
        RedisLodestarClient sweeper = (RedisLodestarClient) clients.connect(options -> options.sweepInterval(SWEEP));

        // then the instance leaves Redis within TTL + two intervals (one for the repair) and a second to spare,
        // the key is Lodestar's type again (or absent), and the repair was counted
        String instances = keys().service("orders").instances();
        await().atMost(TTL.plus(SWEEP.multipliedBy(2)).plusSeconds(1)).pollInterval(Duration.ofMillis(50))
                .until(() -> !redis().hexists(instances, "orders-1"));
        assertThat(redis().type(key)).isIn(kind.type, "none");
        assertThat(sweeper.sweeper().failures.sum()).as("repairs counted").isPositive();
    }

    private static void write(RedisCommands<String, String> redis, String key, String type) {
        switch (type) {
            case "string" -> redis.set(key, "written by another program");
            case "hash" -> redis.hset(key, "field", "value");
            case "list" -> redis.rpush(key, "a", "b");
            case "set" -> redis.sadd(key, "a", "b");
            case "zset" -> redis.zadd(key, 1, "a");
            default -> throw new IllegalArgumentException("type must be one of " + List.of("string", "hash",
                    "list", "set", "zset") + ", but was " + type);
        }
    }
}
