package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/** Step 4 against the real machine: without Docker it says so; with Docker it runs redis:7.4 unmanaged. */
class DockerSupportIT {

    @Test
    void withoutDockerSaysSo() {
        // given
        StringBuilder notes = new StringBuilder();

        // when
        boolean available = DockerSupport.isAvailable(notes);

        // then
        assumeFalse(available, "Docker is available here");
        assertThat(DockerSupport.isTestcontainersPresent()).isTrue();
        assertThat(notes).hasToString("Docker is not available");
    }

    @Test
    void withDockerRunsAnUnmanagedServer() {
        // given
        assumeTrue(DockerSupport.isAvailable(new StringBuilder()), "Docker is not available here");

        // when
        try (RedisServer redis = DockerSupport.start(SourceResolver.DOCKER_IMAGE)) {
            // then
            assertThat(redis.isManaged()).isFalse();
            assertThat(RedisVersion.parse(redis.version())).isGreaterThanOrEqualTo(new RedisVersion(7, 4, 0));
            assertThat(redis.disconnectClients("pubsub")).isZero();
            assertThatThrownBy(redis::kill)
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("not supported for Redis in Docker");
        }
    }
}
