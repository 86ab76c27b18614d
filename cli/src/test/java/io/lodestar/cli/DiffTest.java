package io.lodestar.cli;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DiffTest {
    @Test
    void keepsCommonLinesAndMarksRemovedAndAddedOnes() {
        List<Diff.Line> lines = Diff.lines("a: 1\nb: 2\nc: 3\n", "a: 1\nb: 5\nc: 3\nd: 4\n");

        assertThat(lines).extracting(Diff.Line::toString)
                .containsExactly("  a: 1", "- b: 2", "+ b: 5", "  c: 3", "+ d: 4");
    }

    @Test
    void anEmptySideIsAllAddedOrAllRemoved() {
        assertThat(Diff.lines("", "x\ny")).extracting(Diff.Line::toString).containsExactly("+ x", "+ y");
        assertThat(Diff.lines("x\n", "")).extracting(Diff.Line::toString).containsExactly("- x");
    }

    @Test
    void identicalTextsHaveNoChanges() {
        assertThat(Diff.lines("same\ntext", "same\ntext")).allMatch(line -> line.op() == ' ');
    }
}
