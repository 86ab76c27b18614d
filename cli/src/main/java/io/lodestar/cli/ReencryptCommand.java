package io.lodestar.cli;

import io.lodestar.core.ConfigEncryptionException;
import io.lodestar.core.ConflictException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ConfigEntry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code lodestar config reencrypt}: after a key rotation, rewrites the current version of every encrypted config
 * under the primary key. Each rewrite is a compare-and-set of the same content on the version read, so a write in
 * between is never undone (that config is reported as changed; run again). Content already under the primary key
 * is an unchanged set (the keyed hash is equal), so running it twice changes nothing.
 */
@Command(name = "reencrypt", description = {
        "Rewrite every encrypted config under the primary key of the keyset (after a key rotation), each with"
                + " compare-and-set; configs under the primary key already stay as they are.",
        "Needs the keys (--keyset-file or $LODESTAR_CONFIG_KEYSET), including the old ones."})
final class ReencryptCommand implements Callable<Integer> {
    static final List<String> COLUMNS = List.of("id", "from", "to", "key", "result");

    @ParentCommand
    ConfigCommand config;

    @Option(names = "--include-plain", description = "also encrypt the configs stored in plain text (then clients"
            + " without the keys can no longer read them)")
    boolean includePlain;

    @Override
    public Integer call() {
        LodestarCli root = config.root;
        if (root.configKeys() == null) {
            throw new ExitCodes.UsageException("reencrypt needs the config keys: give --keyset-file FILE or set $"
                    + LodestarCli.KEYSET_VARIABLE);
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        boolean incomplete = false;
        try (LodestarClient client = root.connectStrict()) {
            for (String id : client.config().list()) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("id", id);
                incomplete |= !reencrypt(client, id, row);
                rows.add(row);
            }
        }
        root.output().table(rows, COLUMNS, "no configs in namespace " + root.namespace);
        return incomplete ? ExitCodes.SOFTWARE : ExitCodes.OK;
    }

    /** @return false when the config could not be rewritten (run again, or the key is missing) */
    private boolean reencrypt(LodestarClient client, String id, Map<String, Object> row) {
        Optional<ConfigEntry> read;
        try {
            read = client.directConfig().get(id);
        } catch (ConfigEncryptionException e) {
            row.put("key", e.keyId());
            row.put("result", e.reason() == ConfigEncryptionException.Reason.KEY_NOT_HELD
                    ? "skipped: key not in the keyset" : "skipped: integrity check failed");
            return false;
        }
        if (read.isEmpty()) {
            row.put("result", "removed meanwhile");
            return true;
        }
        ConfigEntry entry = read.get();
        row.put("from", entry.version());
        if (entry.keyId().isEmpty() && !includePlain) {
            row.put("result", "plain, left as it is");
            return true;
        }
        try {
            ConfigEntry written = client.config().compareAndSet(id, entry.content(), entry.format(), entry.version());
            row.put("to", written.version());
            row.put("key", written.keyId().orElse(""));
            row.put("result", written.version() == entry.version() ? "already under this key" : "re-encrypted");
            return true;
        } catch (ConflictException e) {
            row.put("result", "changed meanwhile (version " + e.currentVersion() + "): run again");
            return false;
        }
    }
}
