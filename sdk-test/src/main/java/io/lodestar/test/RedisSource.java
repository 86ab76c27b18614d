package io.lodestar.test;

import java.nio.file.Path;

/** Where the kit gets a Redis server from: the outcome of the lookup in {@link SourceResolver}. */
sealed interface RedisSource {

    /** One line for people: which server, which version, found where. */
    String describe();

    /** Step 1: a running server named by {@code LODESTAR_TEST_REDIS_URI}. */
    record External(RedisEndpoint endpoint) implements RedisSource {
        @Override
        public String describe() {
            return "external Redis " + endpoint.redacted() + " from " + SourceResolver.URI_SETTING;
        }
    }

    /** Steps 2 and 3: a {@code redis-server} executable the kit starts itself. */
    record Binary(Path path, RedisVersion version, String origin) implements RedisSource {
        @Override
        public String describe() {
            return "redis-server " + version + " " + origin + " (" + path + ")";
        }
    }

    /** Step 4: a {@code redis} image run by Testcontainers. */
    record Docker(String image) implements RedisSource {
        @Override
        public String describe() {
            return "Redis in Docker image " + image + " via Testcontainers";
        }
    }
}
