package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.StartupMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code lodestar config copy}: promotes configs from one namespace to another, on the same Redis or another one,
 * as import does with a file (compare-and-set per config, {@code --dry-run} diff).
 */
@Command(name = "copy", description = {"Copy a namespace's current configs to another namespace or Redis.",
        "Only those whose id starts with --prefix, if given; the target is --to-namespace, on the same Redis or on",
        "--to-uri: promotion between environments. Each write is a compare-and-set on the version read just before:",
        "a config changed meanwhile is reported as a conflict (exit 2) and left as it is. --dry-run prints what",
        "would change, and writes nothing. Configs the source lacks stay, unless --prune: then they are removed,",
        "each only at the version read."})
final class ConfigCopyCommand implements Callable<Integer> {
    @ParentCommand
    ConfigCommand config;

    @Option(names = "--from-namespace", paramLabel = "NAME",
            description = "where to copy from (default: --namespace)")
    String fromNamespace;

    @Option(names = "--to-namespace", paramLabel = "NAME",
            description = "where to copy to (default: the source namespace, on --to-uri)")
    String toNamespace;

    @Option(names = "--to-uri", paramLabel = "URI", description = "the target's Redis (default: --uri); never echoed")
    String toUri;

    @Option(names = "--prefix", paramLabel = "PREFIX", defaultValue = "",
            description = "only configs whose id starts with it")
    String prefix;

    @Option(names = "--prune", description = "also remove the target's configs (of --prefix) that the source lacks,"
            + " each only at the version read just before (a config changed meanwhile is a conflict)")
    boolean prune;

    @Option(names = "--dry-run", description = "print the diff against the target; write nothing")
    boolean dryRun;

    @Override
    public Integer call() {
        LodestarCli root = config.root;
        String from = fromNamespace != null ? fromNamespace : root.namespace;
        String to = toNamespace != null ? toNamespace : from;
        String targetUri = toUri != null ? toUri : root.redisUri();
        if (to.equals(from) && targetUri.equals(root.redisUri())) {
            throw new ExitCodes.UsageException("--to-namespace or --to-uri must name another place than the source,"
                    + " but both name namespace " + from + " on the same Redis");
        }
        LodestarOptions source = root.options(root.redisUri(), from, StartupMode.FAIL_FAST);
        LodestarOptions target = root.options(targetUri, to, StartupMode.FAIL_FAST);
        try (LodestarClient reading = root.connect(source); LodestarClient writing = root.connect(target)) {
            List<ConfigTransfer.Item> items = ConfigTransfer.read(reading.config(), reading.directConfig(), prefix);
            String where = "namespace " + to + (toUri != null ? " on " + target.redactedRedisUri() : "");
            return ConfigTransfer.transfer(root.output(), writing.config(), writing.directConfig(), items,
                    new ConfigTransfer.Options(prefix, prune, dryRun),
                    where);
        }
    }
}
