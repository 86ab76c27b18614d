package io.lodestar.redis;

import io.lodestar.core.model.ConfigFormat;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Reads of ever new ids (service names taken from requests, say) each hold an entry and a shard subscription for
 * the idle timeout: past {@code viewTopicLimit} a view drops the one read least recently, counts and logs it, and
 * never drops an entry with listeners.
 */
class ViewTopicLimitIT extends NamespaceTest {
    private static final int LIMIT = 10;

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void readsOfEverNewServiceIdsHoldAtMostTheLimitAndKeepTheSubscribedService() {
        // given a view with a limit, and a service it listens to
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect(options -> options.viewTopicLimit(LIMIT));
        clients.connect().registry().register(instance("orders", "orders-1"));
        List<Object> heard = new CopyOnWriteArrayList<>();
        reader.discovery().subscribe("orders", heard::add);

        // when it reads three times its limit of services that do not exist
        IntStream.range(0, 3 * LIMIT).forEach(i -> assertThat(reader.discovery().getInstances("random-" + i))
                .isEmpty());

        // then it holds its limit, the listened service among them, and unsubscribed the rest
        SyncedView<?, ?> services = reader.views().get("service");
        assertThat(services.api().held()).hasSize(LIMIT).contains("orders", "random-" + (3 * LIMIT - 1));
        assertThat(services.limitDrops.sum()).as("one per read past the limit").isEqualTo(1 + 3 * LIMIT - LIMIT);
        assertThat(reader.discovery().getInstances("orders")).hasSize(1);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(redis().pubsubShardChannels())
                .filteredOn(channel -> channel.contains(clients.namespace()) && channel.contains(":random-"))
                .hasSize(LIMIT - 1));
    }

    @Test
    void readsOfEverNewConfigIdsHoldAtMostTheLimit() {
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect(options -> options.viewTopicLimit(LIMIT));
        clients.connect().config().set("app", "a=1", ConfigFormat.PROPERTIES);

        IntStream.range(0, 2 * LIMIT).forEach(i -> assertThat(reader.config().get("random-" + i)).isEmpty());

        SyncedView<?, ?> configs = reader.views().get("config");
        assertThat(configs.api().held()).hasSize(LIMIT);
        assertThat(configs.limitDrops.sum()).isEqualTo(LIMIT);
    }
}
