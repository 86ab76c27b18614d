package io.lodestar.redis;

import io.lettuce.core.ScoredValue;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** registry().timeToLive: what operators see as "TTL left", read from Redis by Redis' clock. */
class TimeToLiveIT extends NamespaceTest {
    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void eachEphemeralInstanceHasWhatIsLeftOfItsTtlAndPersistentOnesAreAbsent() throws Exception {
        // given an instance with a 30 s TTL, a persistent one, and one past its deadline the sweep has not removed
        LodestarClient client = clients.connect(options -> options.sweepInterval(Duration.ofHours(1)));
        client.registry().register(instance("orders", "live").toBuilder().ttl(Duration.ofSeconds(30)).build());
        client.registry().register(instance("orders", "kept").toBuilder().persistent().build());
        client.registry().register(instance("orders", "late").toBuilder().ttl(Duration.ofSeconds(30)).build());
        redis().zadd(keys().service("orders").deadlines(), System.currentTimeMillis() - 5_000, "late");

        // when the time left is read, blocking and async
        Map<String, Duration> left = client.registry().timeToLive("orders");
        Map<String, Duration> leftAsync = client.registry().async().timeToLive("orders")
                .toCompletableFuture().get(5, TimeUnit.SECONDS);

        // then
        assertThat(left).containsOnlyKeys("live", "late").containsEntry("late", Duration.ZERO);
        assertThat(left.get("live")).isBetween(Duration.ofSeconds(20), Duration.ofSeconds(30));
        assertThat(leftAsync).containsOnlyKeys("live", "late");
        assertThat(client.registry().timeToLive("unknown")).isEmpty();
    }

    @Test
    void aServiceWithMoreInstancesThanOnePageIsReadWhole() {
        // given 25,001 deadlines (read 10,000 per script call)
        ScoredValue<?>[] deadlines = new ScoredValue<?>[25_001];
        long inAMinute = System.currentTimeMillis() + 60_000;
        for (int i = 0; i < deadlines.length; i++) {
            deadlines[i] = ScoredValue.just(inAMinute + i, "i-" + i);
        }
        redis().zadd(keys().service("big").deadlines(), (ScoredValue<String>[]) deadlines);
        LodestarClient client = clients.connect();

        // when / then
        assertThat(client.registry().timeToLive("big")).hasSize(25_001);
    }

    @Test
    void aBadServiceIdIsNamed() {
        LodestarClient client = clients.connect();
        assertThatThrownBy(() -> client.registry().timeToLive("no:colons"))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("serviceId");
    }
}
