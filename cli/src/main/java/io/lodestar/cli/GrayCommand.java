package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.GrayRelease;
import io.lodestar.core.model.GrayRule;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code lodestar config gray start|update|show|promote|abort}: a config's gray release, which the instances a rule
 * selects get instead of the current version (see docs/config.md, "Gray releases").
 */
@Command(name = "gray", description = "Release a config's new content to some instances first (by metadata, id or a"
        + " stable percentage), then promote or abort it.",
        synopsisSubcommandLabel = "(start | update | show | promote | abort)")
final class GrayCommand {
    private static final String RULE_HELP = "which instances get it: clauses separated by ';', e.g."
            + " 'zone=eu-1', 'version in (2.3, 2.4)', '10%', 'instance in (orders-1, orders-2)'";

    @ParentCommand
    ConfigCommand config;

    @Command(name = "start", description = "Start a gray release of a config with content from a file (or stdin).")
    int start(@Parameters(index = "0", paramLabel = "ID") String id,
              @Parameters(index = "1", arity = "0..1", paramLabel = "FILE",
                      description = "the gray content; '-' or none: standard input") String file,
              @Option(names = "--rule", required = true, paramLabel = "RULE", description = RULE_HELP) String rule,
              @Option(names = {"-f", "--format"}, paramLabel = "FORMAT", converter = Converters.Format.class,
                      description = "properties, yaml, json or text (default: from the file name, else text)")
              ConfigFormat format) {
        GrayRule parsed = GrayRule.parse(rule);
        String content = ConfigCommand.read(file);
        try (LodestarClient client = config.root.connect()) {
            GrayRelease release = client.config().startGray(id, content, format != null ? format
                    : ConfigCommand.guess(file), parsed);
            config.root.output().message(view(release, false), id + ": gray release started beside version "
                    + release.baseVersion() + " for " + release.rule());
            return ExitCodes.OK;
        }
    }

    @Command(name = "update", description = {"Change the running gray release's rule and/or content.",
            "Its salt stays: a larger percentage only adds instances."})
    int update(@Parameters(index = "0", paramLabel = "ID") String id,
               @Option(names = "--rule", paramLabel = "RULE", description = RULE_HELP + " (default: unchanged)")
               String rule,
               @Option(names = "--content", paramLabel = "FILE", description = "new gray content (default: unchanged)")
               String file,
               @Option(names = {"-f", "--format"}, paramLabel = "FORMAT", converter = Converters.Format.class,
                       description = "the new content's format (default: from the file name, else unchanged)")
               ConfigFormat format) {
        if (rule == null && file == null && format == null) {
            throw new ExitCodes.UsageException("give --rule, --content or --format: nothing to update");
        }
        GrayRule parsed = rule == null ? null : GrayRule.parse(rule);
        String content = file == null ? null : ConfigCommand.read(file);
        try (LodestarClient client = config.root.connect()) {
            GrayRelease running = running(client, id);
            ConfigFormat chosen = format != null ? format : file != null && ConfigCommand.guess(file)
                    != ConfigFormat.TEXT ? ConfigCommand.guess(file) : running.format();
            GrayRelease release = client.config().updateGray(id, content != null ? content : running.content(),
                    chosen, parsed != null ? parsed : running.rule());
            config.root.output().message(view(release, false), id + ": gray release revision "
                    + release.revision() + " for " + release.rule());
            return ExitCodes.OK;
        }
    }

    @Command(name = "show", description = "Print a config's gray release (with -o json|yaml, its content too).")
    int show(@Parameters(paramLabel = "ID") String id) {
        try (LodestarClient client = config.root.connect()) {
            GrayRelease release = running(client, id);
            Output out = config.root.output();
            out.message(view(release, out.structured()), "gray release of " + id + " beside version "
                    + release.baseVersion() + ", revision " + release.revision() + ": " + release.rule() + " ("
                    + release.format().name().toLowerCase(Locale.ROOT) + ", " + release.content().length()
                    + " characters, hash " + release.contentHash() + ")");
            return ExitCodes.OK;
        }
    }

    @Command(name = "promote", description = {"Make the gray content the config's next version and end the release.",
            "With --if-version, only if the current version is N (compare-and-set)."})
    int promote(@Parameters(paramLabel = "ID") String id,
                @Option(names = "--if-version", paramLabel = "N", description = "compare-and-set on version N")
                Long ifVersion) {
        try (LodestarClient client = config.root.connect()) {
            ConfigEntry entry = client.config().promoteGray(id, ifVersion == null ? -1 : ifVersion);
            config.root.output().message(Views.config(entry, false), id + ": gray release promoted as version "
                    + entry.version());
            return ExitCodes.OK;
        }
    }

    @Command(name = "abort", description = "End the gray release: its instances get the current version again.")
    int abort(@Parameters(paramLabel = "ID") String id) {
        try (LodestarClient client = config.root.connect()) {
            if (!client.config().abortGray(id)) {
                throw noRelease(id);
            }
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("id", id);
            result.put("aborted", true);
            config.root.output().message(result, id + ": gray release aborted");
            return ExitCodes.OK;
        }
    }

    private static GrayRelease running(LodestarClient client, String id) {
        return client.config().gray(id).orElseThrow(() -> noRelease(id));
    }

    private static NotFoundException noRelease(String id) {
        return new NotFoundException("gray release", id, "Config '" + id + "' has no gray release");
    }

    /** A release as the CLI and the console show it. */
    static Map<String, Object> view(GrayRelease release, boolean withContent) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", release.configId());
        row.put("rule", release.rule().toString());
        row.put("baseVersion", release.baseVersion());
        row.put("revision", release.revision());
        row.put("format", release.format().name().toLowerCase(Locale.ROOT));
        row.put("size", release.content().length());
        row.put("hash", release.contentHash());
        row.put("startedAt", release.startedAt().toString());
        row.put("updatedAt", release.updatedAt().toString());
        if (withContent) {
            row.put("content", release.content());
        }
        return row;
    }
}
