package io.lodestar.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A line diff of two config versions (longest common subsequence). Configs are small (kilobytes), so the quadratic
 * table is cheap; beyond {@link #MAX_CELLS} cells it falls back to "all old lines removed, all new lines added",
 * which is still correct, only less helpful.
 */
final class Diff {
    static final long MAX_CELLS = 4_000_000;

    /** One line of a diff: {@code ' '} kept, {@code '-'} removed, {@code '+'} added. */
    record Line(char op, String text) {
        @Override
        public String toString() {
            return op + " " + text;
        }
    }

    private Diff() {
    }

    static List<Line> lines(String before, String after) {
        String[] a = split(before);
        String[] b = split(after);
        List<Line> out = new ArrayList<>();
        if ((long) a.length * b.length > MAX_CELLS) {
            for (String line : a) {
                out.add(new Line('-', line));
            }
            for (String line : b) {
                out.add(new Line('+', line));
            }
            return out;
        }
        int[][] lcs = new int[a.length + 1][b.length + 1];
        for (int i = a.length - 1; i >= 0; i--) {
            for (int j = b.length - 1; j >= 0; j--) {
                lcs[i][j] = a[i].equals(b[j]) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        int i = 0;
        int j = 0;
        while (i < a.length && j < b.length) {
            if (a[i].equals(b[j])) {
                out.add(new Line(' ', a[i++]));
                j++;
            } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
                out.add(new Line('-', a[i++]));
            } else {
                out.add(new Line('+', b[j++]));
            }
        }
        while (i < a.length) {
            out.add(new Line('-', a[i++]));
        }
        while (j < b.length) {
            out.add(new Line('+', b[j++]));
        }
        return out;
    }

    private static String[] split(String text) {
        String body = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        return text.isEmpty() ? new String[0] : body.split("\r?\n", -1);
    }
}
