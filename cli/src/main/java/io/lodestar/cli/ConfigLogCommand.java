package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ConfigAudit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code lodestar config log ID}: a config's audit trail, kept in Redis by every write's own script. */
@Command(name = "log", description = "Show who wrote a config, when and what (its audit trail in Redis), newest first.")
final class ConfigLogCommand implements Callable<Integer> {
    static final List<String> COLUMNS = List.of("at", "operation", "version", "previous", "hash", "client", "host");

    @ParentCommand
    ConfigCommand config;

    @Parameters(paramLabel = "ID")
    String id;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "50",
            description = "at most N records (1-10000, default ${DEFAULT-VALUE})")
    int limit;

    @Override
    public Integer call() {
        try (LodestarClient client = config.root.connect()) {
            List<Map<String, Object>> rows = new ArrayList<>();
            client.config().log(id, limit).forEach(record -> rows.add(view(record)));
            config.root.output().table(rows, COLUMNS, "no audit records of " + id);
            return ExitCodes.OK;
        }
    }

    /** One record as the CLI and the console show it. */
    static Map<String, Object> view(ConfigAudit record) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("at", record.at().toString());
        row.put("operation", record.operation());
        row.put("version", record.version());
        row.put("previous", record.previousVersion());
        row.put("hash", record.contentHash());
        row.put("client", record.client());
        row.put("host", record.host());
        return row;
    }
}
