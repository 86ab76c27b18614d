package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EmbeddedBinaryTest {

    @Test
    void mapsJvmPlatformNamesToTheResourceSuffix() {
        assertThat(EmbeddedBinary.platform("Linux", "amd64")).contains("linux-amd64");
        assertThat(EmbeddedBinary.platform("Linux", "aarch64")).contains("linux-arm64");
        assertThat(EmbeddedBinary.platform("Linux", "i386")).contains("linux-386");
        assertThat(EmbeddedBinary.platform("Mac OS X", "aarch64")).contains("darwin-arm64");
        assertThat(EmbeddedBinary.platform("Mac OS X", "x86_64")).contains("darwin-amd64");
    }

    @Test
    void hasNothingForPlatformsTheJarDoesNotShip() {
        assertThat(EmbeddedBinary.platform("Windows 11", "amd64")).isEmpty();
        assertThat(EmbeddedBinary.platform("Linux", "s390x")).isEmpty();
        assertThat(EmbeddedBinary.platform("Mac OS X", "x86")).isEmpty();
    }

    @Test
    void saysSoWhenTheJarIsNotOnTheClassPath() {
        // given: a class loader that sees nothing
        ClassLoader empty = new ClassLoader(null) {
        };
        StringBuilder notes = new StringBuilder();

        // when
        Optional<Path> binary = EmbeddedBinary.extract(empty, notes);

        // then
        assertThat(binary).isEmpty();
        assertThat(notes).hasToString("org.signal:embedded-redis is not on the class path");
    }
}
