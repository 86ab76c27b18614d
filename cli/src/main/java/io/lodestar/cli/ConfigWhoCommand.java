package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.AppliedConfig;
import io.lodestar.core.model.ConfigEntry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code lodestar config who}: which live clients applied which version of a config; with {@code --wait-applied},
 * a deployment gate that waits until every live client runs the current version.
 */
@Command(name = "who", description = {"List the live clients that applied a config, per version and variant.",
        "With --wait-applied, wait until every live client runs the current version (exit 0), or give up after",
        "--wait-timeout (exit 4): a pipeline can gate a rollout on it."})
final class ConfigWhoCommand implements Callable<Integer> {
    static final List<String> COLUMNS = List.of("version", "variant", "client", "name", "host", "pid", "appliedAt");
    /** How often --wait-applied asks again: quick enough for a pipeline, two small reads per poll. */
    private static final Duration POLL = Duration.ofMillis(200);

    @ParentCommand
    ConfigCommand config;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "ID", description = "the config")
    String id;

    @Option(names = "--wait-applied", description = "wait until every live client runs the current version")
    boolean waitApplied;

    @Option(names = "--wait-timeout", paramLabel = "DURATION", defaultValue = "60s",
            converter = LodestarCli.DurationConverter.class,
            description = "how long --wait-applied waits, e.g. 30s, 5m (default: 60s)")
    Duration waitTimeout;

    /** The config's current version and who applied what, read together. */
    record Rollout(ConfigEntry current, List<AppliedConfig> applied) {
        /** How many live clients run another version than the current one. */
        long behind() {
            return applied.stream().filter(record -> record.version() < current.version()).count();
        }

        boolean complete() {
            return behind() == 0;
        }
    }

    static Rollout read(LodestarClient client, String id) {
        ConfigEntry current = Configs.current(client.directConfig(), id);
        return new Rollout(current, client.config().applied(id));
    }

    @Override
    public Integer call() throws InterruptedException {
        LodestarCli root = config.root;
        try (LodestarClient client = root.connect()) {
            Rollout rollout = read(client, id);
            long deadline = System.nanoTime() + waitTimeout.toNanos();
            while (waitApplied && !rollout.complete() && System.nanoTime() - deadline < 0) {
                Thread.sleep(Math.min(POLL.toMillis(), Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
                rollout = read(client, id);
            }
            print(root.output(), rollout);
            if (waitApplied && !rollout.complete()) {
                PrintWriter err = spec.commandLine().getErr();
                err.println("lodestar: " + id + ": after " + Views.human(waitTimeout) + ", " + rollout.behind()
                        + " of " + rollout.applied().size() + " live clients still run another version than "
                        + rollout.current().version());
                err.flush();
                return ExitCodes.NOT_APPLIED;
            }
            return ExitCodes.OK;
        }
    }

    private void print(Output out, Rollout rollout) {
        if (out.structured()) {
            out.value(view(rollout));
            return;
        }
        if (rollout.applied().isEmpty()) {
            out.text(id + ": version " + rollout.current().version() + ", no live client applied it");
            return;
        }
        out.text(id + ": version " + rollout.current().version() + ", run by " + (rollout.applied().size()
                - rollout.behind()) + " of " + rollout.applied().size() + " live clients"
                + (rollout.complete() ? "" : " (" + rollout.behind() + " behind)"));
        out.table(rows(rollout.applied()), COLUMNS, "");
    }

    /** The rollout for scripts and the console: the current version, whether it is complete, each record. */
    static Map<String, Object> view(Rollout rollout) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("id", rollout.current().id());
        result.put("version", rollout.current().version());
        result.put("complete", rollout.complete());
        result.put("behind", rollout.behind());
        result.put("clients", rows(rollout.applied()));
        return result;
    }

    static List<Map<String, Object>> rows(List<AppliedConfig> applied) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (AppliedConfig record : applied) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("version", record.version());
            row.put("variant", record.variant());
            row.put("client", record.client());
            row.put("name", record.clientName());
            row.put("host", record.host());
            row.put("pid", record.pid());
            row.put("appliedAt", record.appliedAt().toString());
            row.put("expiresAt", record.expiresAt().toString());
            rows.add(row);
        }
        return rows;
    }
}
