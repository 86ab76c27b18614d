package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lodestar.core.model.Namespace;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.util.List;

/** Base of tests that use Lodestar clients: each test gets a fresh namespace on the Redis a subclass names. */
abstract class NamespaceTest {
    Clients clients;
    private RedisClient rawClient;
    private StatefulRedisConnection<String, String> rawConnection;

    abstract String redisUri();

    @BeforeEach
    void newNamespace() {
        clients = new Clients(redisUri());
    }

    /**
     * A plain connection to the same Redis, for what no Lodestar client would do: write behind the views' back,
     * corrupt a key, forge an event, count connections. Opened on first use, closed after the test.
     */
    RedisCommands<String, String> redis() {
        if (rawConnection == null) {
            rawClient = RedisClient.create(redisUri());
            rawConnection = rawClient.connect();
        }
        return rawConnection.sync();
    }

    /** The key layout of this test's namespace. */
    Keys keys() {
        return new Keys(Namespace.of(clients.namespace()));
    }

    /** The ids of the instances a service's instances hash holds in Redis (its stamp's fields left out). */
    List<String> instanceIdsInRedis(String serviceId) {
        return redis().hkeys(keys().service(serviceId).instances()).stream()
                .filter(field -> !Keys.isStampField(field)).toList();
    }

    @AfterEach
    void closeClients() {
        clients.close();
        closeRawConnection();
    }

    /**
     * Closes the plain connection of {@link #redis()} and its resources, if it was opened. A subclass that stops its
     * Redis after a test calls this first (see PrivateRedisTest): a connection that sees its Redis die schedules a
     * reconnect, and when its resources shut down in that moment Lettuce's watchdog asks their stopped timer for one.
     */
    void closeRawConnection() {
        if (rawConnection != null) {
            rawConnection.close();
            rawClient.shutdown();
            rawConnection = null;
            rawClient = null;
        }
    }
}
