package io.lodestar.core.model;

import io.lodestar.core.InvalidArgumentException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NamespaceTest {
    @Test
    void ofKeepsTheName() {
        assertThat(Namespace.of("prod-eu.1_a").name()).isEqualTo("prod-eu.1_a");
    }

    @Test
    void theDefaultIsNamedDefault() {
        assertThat(Namespace.DEFAULT.name()).isEqualTo("default");
        assertThat(Namespace.of("default")).isEqualTo(Namespace.DEFAULT);
    }

    @Test
    void toStringIsTheName() {
        assertThat(Namespace.of("staging")).hasToString("staging");
    }

    @Test
    void isEqualByName() {
        assertThat(Namespace.of("a")).isEqualTo(new Namespace("a")).hasSameHashCodeAs(new Namespace("a"))
                .isNotEqualTo(Namespace.of("A"));
    }

    @Test
    void accepts64Characters() {
        assertThat(Namespace.of("n".repeat(64)).name()).hasSize(64);
    }

    @ParameterizedTest(name = "''{0}''")
    @NullAndEmptySource
    @ValueSource(strings = {"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn", "my ns", "-ns",
            ".ns", "ns:1", "ns/1", "{ns}", "prød"})
    void rejectsABadName(String name) {
        assertThatThrownBy(() -> Namespace.of(name))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageStartingWith("namespace must be 1-64 characters of [A-Za-z0-9._-], starting with a "
                        + "letter or digit, but was ");
    }
}
