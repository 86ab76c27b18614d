package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.internal.Validation;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code lodestar config export}: the current configs of a namespace (or a prefix of it) into a file. */
@Command(name = "export", description = {"Write the namespace's current configs to a YAML or JSON file.",
        "Only those whose id starts with --prefix, if given; import reads the file back (content, format, version",
        "and hash of each)."})
final class ConfigExportCommand implements Callable<Integer> {
    @ParentCommand
    ConfigCommand config;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "FILE", description = "where to write; '-' or none: standard output")
    String file;

    @Option(names = "--prefix", paramLabel = "PREFIX", defaultValue = "",
            description = "only configs whose id starts with it")
    String prefix;

    @Option(names = "--file-format", paramLabel = "FORMAT", converter = FileFormat.class,
            description = "yaml or json (default: json for a .json FILE, else yaml)")
    ConfigFile.Format fileFormat;

    @Override
    public Integer call() {
        LodestarCli root = config.root;
        boolean toStdout = file == null || file.equals("-");
        ConfigFile.Format format = fileFormat != null ? fileFormat : ConfigFile.formatOf(file);
        try (LodestarClient client = root.connectStrict()) {
            List<ConfigTransfer.Item> items = ConfigTransfer.read(client.config(), client.directConfig(), prefix);
            String text = ConfigFile.write(format, root.namespace, prefix, items);
            if (toStdout) {
                spec.commandLine().getOut().print(text);
                spec.commandLine().getOut().flush();
                return ExitCodes.OK;
            }
            Files.writeString(Path.of(file), text, StandardCharsets.UTF_8);
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("namespace", root.namespace);
            result.put("file", file);
            result.put("configs", items.size());
            root.output().message(result, "exported " + items.size() + " configs of namespace " + root.namespace
                    + " to " + file);
            return ExitCodes.OK;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }

    /** {@code yaml} or {@code json}, in any case. */
    static final class FileFormat implements CommandLine.ITypeConverter<ConfigFile.Format> {
        @Override
        public ConfigFile.Format convert(String value) {
            try {
                return ConfigFile.Format.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("file format must be yaml or json, but was "
                        + Validation.show(value));
            }
        }
    }
}
