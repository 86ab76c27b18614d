package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedisEndpointTest {

    @Test
    void parsesHostPortPasswordAndDatabase() {
        // when
        RedisEndpoint endpoint = RedisEndpoint.parse("redis://:s3cret@redis.test:7000/2", "URI");

        // then
        assertThat(endpoint.host()).isEqualTo("redis.test");
        assertThat(endpoint.port()).isEqualTo(7000);
        assertThat(endpoint.user()).isNull();
        assertThat(endpoint.password()).isEqualTo("s3cret");
        assertThat(endpoint.database()).isEqualTo(2);
        assertThat(endpoint.tls()).isFalse();
        assertThat(endpoint.redacted()).isEqualTo("redis://:***@redis.test:7000/2");
    }

    @Test
    void parsesUserAndTlsAndDefaultPort() {
        // when
        RedisEndpoint endpoint = RedisEndpoint.parse("rediss://alice:pw@[::1]", "URI");

        // then
        assertThat(endpoint.host()).isEqualTo("::1");
        assertThat(endpoint.port()).isEqualTo(6379);
        assertThat(endpoint.user()).isEqualTo("alice");
        assertThat(endpoint.password()).isEqualTo("pw");
        assertThat(endpoint.tls()).isTrue();
    }

    @Test
    void aPasswordWithoutColonIsAPassword() {
        assertThat(RedisEndpoint.parse("redis://pw@localhost:7001", "URI").password()).isEqualTo("pw");
    }

    @Test
    void rejectsOtherSchemes() {
        assertThatThrownBy(() -> RedisEndpoint.parse("http://localhost:7000", "LODESTAR_TEST_REDIS_URI"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("LODESTAR_TEST_REDIS_URI must be a redis:// or rediss:// URI, but was "
                        + "'http://localhost:7000'");
    }
}
