package io.lodestar.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.lodestar.core.internal.Validation;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Prints what a command found: an aligned table for people, or JSON / YAML for scripts. Structured output is built
 * from plain maps and lists (see {@link Views}), so its shape is visible in one place and needs no Jackson module.
 */
final class Output {
    /** How to print. */
    enum Format { TABLE, JSON, YAML }

    /**
     * Jackson's mappers, made when first used (a holder class): a command that prints a table never makes them, and
     * their making is about 30 ms of a one-shot command's start.
     */
    static final class Mappers {
        static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder()
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES).build());

        private Mappers() {
        }
    }

    private final Format format;
    private final PrintWriter out;

    Output(Format format, PrintWriter out) {
        this.format = format;
        this.out = out;
    }

    boolean structured() {
        return format != Format.TABLE;
    }

    /** Prints a value as JSON or YAML (for table output, callers print text themselves). */
    void value(Object value) {
        try {
            String text = (format == Format.YAML ? Mappers.YAML : Mappers.JSON).writeValueAsString(value);
            out.print(text.endsWith("\n") ? text : text + "\n");
            out.flush();
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Prints a one-line message for people, or {@code value} for scripts. */
    void message(Object value, String text) {
        if (structured()) {
            value(value);
        } else {
            text(text);
        }
    }

    void text(String text) {
        out.print(text.endsWith("\n") ? text : text + "\n");
        out.flush();
    }

    /**
     * Prints rows: as a table with the given columns (keys of each row, headed by their upper-cased names), or as
     * a JSON / YAML list of the full rows.
     */
    void table(List<Map<String, Object>> rows, List<String> columns, String whenEmpty) {
        if (structured()) {
            value(rows);
            return;
        }
        if (rows.isEmpty()) {
            if (!whenEmpty.isEmpty()) {
                text(whenEmpty);
            }
            return;
        }
        text(Table.render(rows, columns));
    }

    /** Aligned columns separated by two spaces, the header in capitals, as kubectl prints them. */
    static final class Table {
        private Table() {
        }

        static String render(List<Map<String, Object>> rows, List<String> columns) {
            int[] widths = new int[columns.size()];
            String[][] cells = new String[rows.size() + 1][columns.size()];
            for (int c = 0; c < columns.size(); c++) {
                cells[0][c] = columns.get(c).replaceAll("([a-z])([A-Z])", "$1 $2").toUpperCase(Locale.ROOT);
            }
            for (int r = 0; r < rows.size(); r++) {
                for (int c = 0; c < columns.size(); c++) {
                    Object value = rows.get(r).get(columns.get(c));
                    cells[r + 1][c] = value == null ? "-" : String.valueOf(value);
                }
            }
            for (String[] row : cells) {
                for (int c = 0; c < row.length; c++) {
                    widths[c] = Math.max(widths[c], row[c].length());
                }
            }
            StringBuilder text = new StringBuilder();
            for (String[] row : cells) {
                StringBuilder line = new StringBuilder();
                for (int c = 0; c < row.length; c++) {
                    line.append(row[c]);
                    if (c < row.length - 1) {
                        line.append(" ".repeat(widths[c] - row[c].length() + 2));
                    }
                }
                text.append(line.toString().stripTrailing()).append('\n');
            }
            return text.toString();
        }
    }

    /** {@code table}, {@code json} or {@code yaml}, any case. */
    static final class FormatConverter implements CommandLine.ITypeConverter<Format> {
        @Override
        public Format convert(String value) {
            try {
                return Format.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("output must be one of table, json, yaml, but was "
                        + Validation.show(value));
            }
        }
    }
}
