package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lodestar.test.RedisServer;

import java.util.Arrays;

/** Test helper: one administrative command (ACL SETUSER, SAVE, CONFIG SET ...) as the default user. */
final class RedisAdmin {
    private RedisAdmin() {
    }

    static void run(RedisServer redis, String command) {
        try (RedisClient raw = RedisClient.create(redis.uri());
             StatefulRedisConnection<String, String> connection = raw.connect()) {
            String[] parts = command.split(" ");
            connection.sync().dispatch(CommandType.valueOf(parts[0]), new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).addValues(Arrays.copyOfRange(parts, 1, parts.length)));
        }
    }
}
