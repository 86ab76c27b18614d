package io.lodestar.redis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** Base of tests that use Lodestar clients: each test gets a fresh namespace on the Redis a subclass names. */
abstract class NamespaceTest {
    Clients clients;

    abstract String redisUri();

    @BeforeEach
    void newNamespace() {
        clients = new Clients(redisUri());
    }

    @AfterEach
    void closeClients() {
        clients.close();
    }
}
