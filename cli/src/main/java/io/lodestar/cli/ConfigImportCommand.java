package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.internal.Validation;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code lodestar config import}: the configs of an export file into the namespace, compare-and-set. */
@Command(name = "import", description = {"Write the configs of an export file into the namespace.",
        "Each write is a compare-and-set on the version read just before: a config changed meanwhile is reported as",
        "a conflict (exit 2) and left as it is. --dry-run prints what would change, and writes nothing.",
        "Configs the file lacks stay, unless --prune: then they are removed, each only at the version read."})
final class ConfigImportCommand implements Callable<Integer> {
    @ParentCommand
    ConfigCommand config;

    @Parameters(paramLabel = "FILE", description = "an export (YAML or JSON); '-': standard input")
    String file;

    @Option(names = "--prefix", paramLabel = "PREFIX", defaultValue = "",
            description = "only configs whose id starts with it")
    String prefix;

    @Option(names = "--prune", description = "also remove the namespace's configs (of --prefix) that the source lacks,"
            + " each only at the version read just before (a config changed meanwhile is a conflict)")
    boolean prune;

    @Option(names = "--dry-run", description = "print the diff against the namespace; write nothing")
    boolean dryRun;

    @Override
    public Integer call() {
        LodestarCli root = config.root;
        List<ConfigTransfer.Item> items = ConfigFile.read(read(file), file.equals("-") ? "standard input" : file)
                .stream().filter(item -> item.id().startsWith(prefix)).toList();
        try (LodestarClient client = root.connectStrict()) {
            return ConfigTransfer.transfer(root.output(), client.config(), client.directConfig(), items,
                    new ConfigTransfer.Options(prefix, prune, dryRun),
                    "namespace " + root.namespace);
        }
    }

    private static String read(String file) {
        try {
            if (file.equals("-")) {
                return new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
            }
            Path path = Path.of(file);
            if (!Files.isRegularFile(path)) {
                throw new ExitCodes.UsageException("FILE must be a readable file, but was " + Validation.show(file));
            }
            return Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + file, e);
        }
    }
}
