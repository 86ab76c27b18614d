package io.lodestar.examples;

import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.net.URI;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's quick start does what its comments say, against a real Redis. */
class QuickStartIT {
    @Test
    void quickStartRegistersDiscoversAndChoosesTheInstance() {
        URI chosen = QuickStart.quickStart(TestRedis.standalone().uri());

        assertThat(chosen).isEqualTo(URI.create("http://10.0.0.7:8080"));
    }
}
