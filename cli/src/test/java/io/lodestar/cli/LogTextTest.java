package io.lodestar.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LogTextTest {
    @Test
    void aPlainValueIsPrintedAsItIs() {
        assertThat(LogText.field("orders/limits")).isEqualTo("orders/limits");
        assertThat(LogText.field("config.set")).isEqualTo("config.set");
    }

    @Test
    void aLineBreakCannotStartAnotherLine() {
        String forged = "orders\n2026-11-27T00:00:00Z AUDIT who=admin@127.0.0.1 done";

        assertThat(LogText.field(forged))
                .isEqualTo("\"orders\\n2026-11-27T00:00:00Z AUDIT who=admin@127.0.0.1 done\"")
                .doesNotContain("\n");
    }

    @Test
    void aCarriageReturnAndTerminalEscapesCannotRewriteTheLine() {
        assertThat(LogText.escape("a\rb\u001b[2Kc\u0085d")).isEqualTo("a\\rb\\u001b[2Kc\\u0085d");
    }

    @Test
    void unicodeSeparatorsAndBidiOverridesAreEscaped() {
        assertThat(LogText.escape("a\u2028b\u2029c\u202ed\u2066e")).isEqualTo("a\\u2028b\\u2029c\\u202ed\\u2066e");
    }

    @Test
    void aSpaceOrQuoteCannotEndTheFieldEarly() {
        assertThat(LogText.field("x done: y \"z\"")).isEqualTo("\"x done: y \\\"z\\\"\"");
    }

    @Test
    void aBackslashIsEscapedSoAnEscapeCannotBeForged() {
        assertThat(LogText.field("a\\nb")).isEqualTo("\"a\\\\nb\"");
    }

    @Test
    void lettersOfOtherScriptsStayReadable() {
        assertThat(LogText.escape("Zürich 東京")).isEqualTo("Zürich 東京");
    }
}
