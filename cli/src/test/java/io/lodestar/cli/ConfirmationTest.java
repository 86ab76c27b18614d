package io.lodestar.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The question a destructive command asks on a terminal, and what counts as a yes. */
class ConfirmationTest {
    private final StringWriter asked = new StringWriter();

    private boolean answer(String typed) {
        return Confirmation.ask(new BufferedReader(new StringReader(typed)), new PrintWriter(asked), "purge x");
    }

    @ParameterizedTest
    @ValueSource(strings = {"y\n", "yes\n", "Y\n", " YES \n"})
    void yOrYesConfirms(String typed) {
        assertThat(answer(typed)).isTrue();
        assertThat(asked).hasToString("Really purge x? [y/N] ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\n", "n\n", "no\n", "yep\n", ""})
    void anythingElseOrTheEndOfInputDeclines(String typed) {
        assertThat(answer(typed)).isFalse();
    }

    @Test
    void withYesNothingIsAsked() {
        Confirmation confirmation = new Confirmation();
        confirmation.yes = true;

        confirmation.require("purge x"); // returns: no terminal needed
    }

    @Test
    void withoutYesOrATerminalItRefusesSayingHowToConfirm() {
        // the surefire JVM's standard input is not a terminal
        assertThatThrownBy(() -> new Confirmation().require("purge x"))
                .isInstanceOf(ExitCodes.UsageException.class)
                .hasMessage("purge x needs a confirmation, and standard input is not a terminal to ask on:"
                        + " give --yes to confirm");
    }
}
