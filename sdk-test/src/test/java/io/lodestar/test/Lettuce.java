package io.lodestar.test;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import java.time.Duration;

/** Lettuce clients for the tests, with fast shutdown and no auto-reconnect (so a killed connection stays dead). */
final class Lettuce {

    private Lettuce() {
    }

    static RedisClient client(RedisServer server) {
        RedisClient client = RedisClient.create(RedisURI.create(server.uri()));
        client.setOptions(ClientOptions.builder().autoReconnect(false).build());
        return client;
    }

    static void shutdown(AbstractRedisClient client) {
        if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** Closes the connection, then shuts the client down (also when closing the connection failed). */
    static void close(StatefulConnection<?, ?> connection, AbstractRedisClient client) {
        try {
            if (connection != null) {
                connection.close();
            }
        } finally {
            shutdown(client);
        }
    }
}
