package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The config contract on a standalone Redis. */
class ConfigStandaloneIT extends ConfigContract {
    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void aDirectReadSubscribesToNothingAndHoldsNothing() {
        LodestarClient writer = clients.connect();
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        List<String> before = redis().pubsubShardChannels();

        reader.directConfig().get("app");

        assertThat(redis().pubsubShardChannels()).as("no channel subscribed").hasSameElementsAs(before);
        assertThat(reader.configService().entriesView().api().held()).as("nothing held").isEmpty();

        reader.config().get("app");

        assertThat(redis().pubsubShardChannels()).as("the view's read subscribes").hasSize(before.size() + 1);
        assertThat(reader.configService().entriesView().api().held()).containsExactly("app");
    }
}
