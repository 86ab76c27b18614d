package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code lodestar config get|set|rm|list|history|diff|rollback}: versioned config entries; the subcommands in classes
 * of their own: {@code gray} ({@link GrayCommand}), {@code log} ({@link ConfigLogCommand}), {@code who}
 * ({@link ConfigWhoCommand}), {@code export}, {@code import} and {@code copy} ({@link ConfigTransfer}).
 */
@Command(name = "config", description = "Read and change config entries (versioned, with history).",
        addMethodSubcommands = false, // the subcommands are in CommandTree, built as far as a command line needs
        synopsisSubcommandLabel = "(get | set | rm | list | history | diff | rollback | gray | log | reencrypt | who"
                + " | export | import | copy)")
final class ConfigCommand {
    @ParentCommand
    LodestarCli root;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Command(name = "get", description = "Print a config's current content (or, with -o json|yaml, the whole entry).")
    int get(@Parameters(paramLabel = "ID") String id,
            @Option(names = "--version", paramLabel = "N", description = "a version from history instead")
            Long version) {
        try (LodestarClient client = root.connect()) {
            ConfigEntry entry = version == null ? Configs.current(client.directConfig(), id)
                    : Configs.version(client.config(), id, version);
            Output out = out();
            if (out.structured()) {
                out.value(Views.config(entry, true));
            } else {
                spec.commandLine().getOut().print(entry.content());
                spec.commandLine().getOut().flush();
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "set", description = {"Set a config's content from a file, or from standard input.",
            "With --if-version, only if the current version is N (0: only if it does not exist yet)."})
    int set(@Parameters(index = "0", paramLabel = "ID") String id,
            @Parameters(index = "1", arity = "0..1", paramLabel = "FILE",
                    description = "the content; '-' or none: standard input") String file,
            @Option(names = {"-f", "--format"}, paramLabel = "FORMAT", converter = Converters.Format.class,
                    description = "properties, yaml, json or text (default: from the file name, else text)")
            ConfigFormat format,
            @Option(names = "--if-version", paramLabel = "N", description = "compare-and-set on version N")
            Long ifVersion) {
        String content = read(file);
        ConfigFormat chosen = format != null ? format : guess(file);
        try (LodestarClient client = root.connect()) {
            ConfigEntry entry = ifVersion == null ? client.config().set(id, content, chosen)
                    : client.config().compareAndSet(id, content, chosen, ifVersion);
            root.verbose("set %s: version %d", id, entry.version());
            out().message(Views.config(entry, false), id + ": version " + entry.version());
            return ExitCodes.OK;
        }
    }

    @Command(name = "rm", description = "Remove a config; its history stays, so it can be rolled back.")
    int rm(@Parameters(paramLabel = "ID") String id) {
        try (LodestarClient client = root.connect()) {
            if (!client.config().remove(id)) {
                throw Configs.notFound(id);
            }
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("id", id);
            result.put("removed", true);
            out().message(result, "removed " + id);
            return ExitCodes.OK;
        }
    }

    @Command(name = "list", description = "List the configs of the namespace with their current versions.")
    int list() {
        try (LodestarClient client = root.connect()) {
            out().table(Configs.list(client.config(), client.directConfig()), Views.CONFIG_COLUMNS,
                    "no configs in namespace " + root.namespace);
            return ExitCodes.OK;
        }
    }

    @Command(name = "history", description = "List the kept versions of a config, newest first.")
    int history(@Parameters(paramLabel = "ID") String id) {
        try (LodestarClient client = root.connect()) {
            List<ConfigEntry> versions = client.config().history(id);
            if (versions.isEmpty()) {
                throw Configs.notFound(id);
            }
            List<Map<String, Object>> rows = new ArrayList<>();
            versions.forEach(entry -> rows.add(Views.config(entry, false)));
            out().table(rows, Views.HISTORY_COLUMNS, "");
            return ExitCodes.OK;
        }
    }

    @Command(name = "diff", description = "Show what changed between two versions (TO defaults to the current one).")
    int diff(@Parameters(index = "0", paramLabel = "ID") String id,
             @Parameters(index = "1", paramLabel = "FROM") long from,
             @Parameters(index = "2", arity = "0..1", paramLabel = "TO") Long to) {
        try (LodestarClient client = root.connect()) {
            Configs.Compared diff = Configs.diff(client.config(), client.directConfig(), id, from, to);
            Output out = out();
            if (out.structured()) {
                out.value(Views.diff(diff));
            } else {
                StringBuilder text = new StringBuilder();
                text.append("--- ").append(id).append(" version ").append(diff.from().version()).append('\n');
                text.append("+++ ").append(id).append(" version ").append(diff.to().version()).append('\n');
                diff.lines().forEach(line -> text.append(line).append('\n'));
                out.text(text.toString());
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "rollback", description = {"Make an older version current again, as a new version; asks first.",
            "With --if-version, only if the current version is N (a compare-and-set of that version's content)."})
    int rollback(@Parameters(index = "0", paramLabel = "ID") String id,
                 @Parameters(index = "1", paramLabel = "VERSION") long version,
                 @Option(names = "--if-version", paramLabel = "N", description = "compare-and-set on version N")
                 Long ifVersion,
                 @Mixin Confirmation confirmation) {
        confirmation.require("roll back config " + id + " to the content of version " + version + " in namespace "
                + root.namespace);
        try (LodestarClient client = root.connect()) {
            ConfigEntry entry = Configs.rollback(client.config(), id, version, ifVersion);
            out().message(Views.config(entry, false), id + ": version " + entry.version() + " (content of version "
                    + version + ")");
            return ExitCodes.OK;
        }
    }

    private Output out() {
        return root.output();
    }

    static String read(String file) {
        try {
            if (file == null && System.console() != null) {
                // nothing piped in: waiting for a terminal's end-of-file would look like a hang
                throw new ExitCodes.UsageException("give the content as a FILE, pipe it in, or type it after '-'");
            }
            if (file == null || file.equals("-")) {
                InputStream in = System.in;
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            Path path = Path.of(file);
            if (!Files.isRegularFile(path)) {
                throw new ExitCodes.UsageException("file must be a readable file, but was " + Validation.show(file));
            }
            return Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + (file == null ? "standard input" : file), e);
        }
    }

    static ConfigFormat guess(String file) {
        String name = file == null ? "" : file.toLowerCase(Locale.ROOT);
        if (name.endsWith(".yaml") || name.endsWith(".yml")) {
            return ConfigFormat.YAML;
        }
        if (name.endsWith(".json")) {
            return ConfigFormat.JSON;
        }
        if (name.endsWith(".properties")) {
            return ConfigFormat.PROPERTIES;
        }
        return ConfigFormat.TEXT;
    }
}
