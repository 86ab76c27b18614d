package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedisVersionTest {

    @Test
    void parsesTheServerBanner() {
        // given
        String banner = "Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=ae4d7c971a948f0";

        // when
        RedisVersion version = RedisVersion.parseServerBanner(banner);

        // then
        assertThat(version).isEqualTo(new RedisVersion(7, 0, 15));
        assertThat(version.isSupported()).isTrue();
    }

    @Test
    void comparesNumericallyNotAsText() {
        assertThat(RedisVersion.parse("7.10.0")).isGreaterThan(RedisVersion.parse("7.9.3"));
        assertThat(RedisVersion.parse("10.0")).isGreaterThan(RedisVersion.parse("7.4.1"));
    }

    @Test
    void versionsBelowSevenAreNotSupported() {
        assertThat(RedisVersion.parse("6.2.14").isSupported()).isFalse();
        assertThat(RedisVersion.parse("7.0.0").isSupported()).isTrue();
    }

    @Test
    void rejectsTextWithoutAVersion() {
        assertThatThrownBy(() -> RedisVersion.parse("unknown"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Redis version must look like 7.0.15, but was 'unknown'");
        assertThatThrownBy(() -> RedisVersion.parseServerBanner("Usage: ./redis-server [/path/to/redis.conf]"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must print 'v=<version>'");
    }

    @Test
    void serverBelowTheFloorFailsClearly() {
        assertThatThrownBy(() -> ServerInfo.requireSupported("6.2.14", "the server named by LODESTAR_TEST_REDIS_URI"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is Redis 6.2.14, but Lodestar needs Redis 7.0.0 or newer (sharded PubSub");
    }
}
