package io.lodestar.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LodestarTest {
    @Test
    void connectWithoutABackendOnTheClassPathSaysWhichDependencyToAdd() {
        assertThatThrownBy(() -> Lodestar.connect("redis://localhost:6379"))
                .isExactlyInstanceOf(LodestarException.class)
                .hasMessageContaining("No Lodestar backend found on the class path")
                .hasMessageContaining("io.lodestar:lodestar-redis");
    }

    @Test
    void connectWithOptionsWithoutABackendFailsTheSameWay() {
        LodestarOptions options = LodestarOptions.builder("redis://localhost:6379").build();

        assertThatThrownBy(() -> Lodestar.connect(options))
                .isExactlyInstanceOf(LodestarException.class)
                .hasMessageContaining("lodestar-redis");
    }

    @Test
    void connectValidatesTheUriBeforeLookingForABackend() {
        assertThatThrownBy(() -> Lodestar.connect("localhost:6379"))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageStartingWith("redisUri must be");
    }

    @Test
    void connectRejectsNullOptions() {
        assertThatThrownBy(() -> Lodestar.connect((LodestarOptions) null))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessage("options must be non-null, but was null");
    }
}
