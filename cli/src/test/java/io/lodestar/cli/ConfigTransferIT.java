package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lodestar config export}, {@code import} and {@code copy} against real Redis: the jar as a user runs it (as
 * {@link CliIT} does), and the compare-and-set of a transfer in process, where a test can edit the target between
 * the plan and the writes.
 */
class ConfigTransferIT {
    /** Contents that must survive the trip exactly: trailing newlines, non-ASCII, CRLF, look-alikes of YAML. */
    private static final Map<String, String> CONTENTS = Map.of(
            "app.yaml", "server:\n  port: 8080\n  name: \"grüße\"\n\n\n",
            "app.text", "こんにちは 🚀\r\nno final newline",
            "app.json", "{\"flag\": true}",
            "app.hex", "0x10",
            "app.spaces", "  indented first line\ttab  \n",
            "other.props", "a=1\n");

    private final RedisServer redis = TestRedis.standalone();
    private final List<LodestarClient> clients = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        clients.forEach(LodestarClient::close);
    }

    private LodestarClient client(String uri, String namespace) {
        LodestarClient client = RedisLodestar.create(LodestarOptions.builder(uri).namespace(namespace).build());
        clients.add(client);
        return client;
    }

    private static String namespace() {
        return "xfer-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private LodestarClient seeded(String namespace) {
        LodestarClient client = client(redis.uri(), namespace);
        CONTENTS.forEach((id, content) -> client.config().set(id, content, format(id)));
        client.config().set("app.yaml", CONTENTS.get("app.yaml") + "# v2\n", ConfigFormat.YAML);
        client.config().set("app.yaml", CONTENTS.get("app.yaml"), ConfigFormat.YAML); // version 3 in the source
        return client;
    }

    /** A new namespace holding {@link #CONTENTS}. */
    private String seededNamespace() {
        String namespace = namespace();
        seeded(namespace);
        return namespace;
    }

    private static ConfigFormat format(String id) {
        return switch (id.substring(id.indexOf('.') + 1)) {
            case "yaml" -> ConfigFormat.YAML;
            case "json" -> ConfigFormat.JSON;
            case "props" -> ConfigFormat.PROPERTIES;
            default -> ConfigFormat.TEXT;
        };
    }

    private static CliJar.Result lodestar(String uri, String namespace, String... args) {
        List<String> all = new ArrayList<>(List.of("--uri", uri, "--namespace", namespace));
        all.addAll(List.of(args));
        return CliJar.run(Map.of(), "", all.toArray(String[]::new));
    }

    @Test
    void exportThenImportRoundTripsANamespaceByteForByte() throws Exception {
        // given a namespace with contents a YAML round trip could change
        String source = namespace();
        LodestarClient from = seeded(source);
        String target = namespace();
        Path file = dir.resolve("configs.yaml");

        // when it is exported to a file, and the file imported into an empty namespace
        CliJar.Result exported = lodestar(redis.uri(), source, "config", "export", file.toString());
        CliJar.Result imported = lodestar(redis.uri(), target, "config", "import", file.toString());

        // then every config of the target has the source's content, format and hash exactly
        assertThat(exported.exitCode()).as(exported.toString()).isZero();
        assertThat(imported.exitCode()).as(imported.toString()).isZero();
        LodestarClient to = client(redis.uri(), target);
        assertThat(to.config().list()).isEqualTo(from.config().list());
        for (String id : CONTENTS.keySet()) {
            ConfigEntry original = from.directConfig().get(id).orElseThrow();
            ConfigEntry copy = to.directConfig().get(id).orElseThrow();
            assertThat(copy.content()).as(id).isEqualTo(original.content());
            assertThat(copy.format()).as(id).isEqualTo(original.format());
            assertThat(copy.contentHash()).as(id).isEqualTo(original.contentHash());
        }
        // and exporting the target gives the same file but for the namespace and the versions it counts itself
        Path again = dir.resolve("again.yaml");
        assertThat(lodestar(redis.uri(), target, "config", "export", again.toString()).exitCode()).isZero();
        assertThat(withoutVersions(Files.readString(again)).replace(target, source))
                .isEqualTo(withoutVersions(Files.readString(file)));
    }

    private static String withoutVersions(String export) {
        return export.replaceAll("(?m)^  version: .*\n", "");
    }

    @Test
    void aJsonExportOfAPrefixHoldsOnlyThatPrefix() {
        String source = namespace();
        seeded(source);

        CliJar.Result exported = lodestar(redis.uri(), source, "config", "export", "--prefix", "other.",
                "--file-format", "json");

        assertThat(exported.exitCode()).as(exported.toString()).isZero();
        JsonNode document = exported.json();
        assertThat(document.get("kind").asText()).isEqualTo("lodestar-configs");
        assertThat(document.get("configs")).hasSize(1);
        assertThat(document.get("configs").get(0).get("id").asText()).isEqualTo("other.props");
        assertThat(document.get("configs").get(0).get("content").asText()).isEqualTo("a=1\n");
        assertThat(document.get("configs").get(0).get("format").asText()).isEqualTo("properties");
    }

    @Test
    void aDryRunPrintsTheDiffAndWritesNothing() {
        // given a target that holds one config in another version and lacks another
        String source = namespace();
        seeded(source);
        String target = namespace();
        LodestarClient to = client(redis.uri(), target);
        to.config().set("app.json", "{\"flag\": false}", ConfigFormat.JSON);

        // when the copy is a dry run
        CliJar.Result dryRun = lodestar(redis.uri(), source, "config", "copy", "--to-namespace", target,
                "--prefix", "app.", "--dry-run");

        // then it shows what would change and the target is as it was
        assertThat(dryRun.exitCode()).as(dryRun.toString()).isZero();
        assertThat(dryRun.out()).contains("--- app.json (version 1, json)", "- {\"flag\": false}",
                "+ {\"flag\": true}", "--- app.hex (absent)", "+ 0x10",
                "4 to create, 1 to update, 0 unchanged; nothing written");
        assertThat(to.config().list()).containsExactly("app.json");
        assertThat(to.directConfig().get("app.json").orElseThrow().version()).isEqualTo(1);
    }

    @Test
    void aCopyToAnotherRedisWritesWhatDiffersAndLeavesTheRestAtItsVersion() {
        // given the same config already in the target, on another Redis
        String namespace = namespace();
        seeded(namespace);
        try (RedisServer other = TestRedis.startStandalone()) {
            LodestarClient to = client(other.uri(), namespace);
            to.config().set("other.props", "a=1\n", ConfigFormat.PROPERTIES);

            // when the namespace is copied there
            CliJar.Result copied = lodestar(redis.uri(), namespace, "config", "copy", "--to-uri", other.uri(),
                    "-o", "json");

            // then the missing configs are created and the equal one is left as it was
            assertThat(copied.exitCode()).as(copied.toString()).isZero();
            Map<String, String> results = new TreeMap<>();
            copied.json().forEach(row -> results.put(row.get("id").asText(), row.get("result").asText()));
            assertThat(results).containsEntry("other.props", "unchanged").containsEntry("app.yaml", "created")
                    .hasSize(CONTENTS.size());
            assertThat(to.directConfig().get("other.props").orElseThrow().version()).isEqualTo(1);
            assertThat(to.directConfig().get("app.text").orElseThrow().content()).isEqualTo(CONTENTS.get("app.text"));
        }
    }

    @Test
    void aCopyOntoItselfIsAUsageError() {
        CliJar.Result result = lodestar(redis.uri(), namespace(), "config", "copy", "--dry-run");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.err()).contains("--to-namespace or --to-uri must name another place than the source");
    }

    @Test
    void anEditOfTheTargetBetweenPlanAndWriteIsAConflictAndIsKept() {
        // given a plan made against the target's version 1
        String source = namespace();
        LodestarClient from = seeded(source);
        LodestarClient to = client(redis.uri(), namespace());
        to.config().set("app.json", "{\"flag\": false}", ConfigFormat.JSON);
        List<ConfigTransfer.Item> items = ConfigTransfer.read(from.config(), from.directConfig(), "app.");
        List<ConfigTransfer.Step> plan = ConfigTransfer.plan(to.directConfig(), items);

        // when someone edits the target before the plan is carried out
        to.config().set("app.json", "{\"edited\": true}", ConfigFormat.JSON);
        List<ConfigTransfer.Outcome> outcomes = ConfigTransfer.apply(to.config(), plan);

        // then that config is a conflict and keeps the edit; the others are written
        ConfigTransfer.Outcome json = outcomes.stream().filter(o -> o.step().item().id().equals("app.json"))
                .findFirst().orElseThrow();
        assertThat(json.result()).isEqualTo("conflict");
        assertThat(json.version()).isEqualTo(2);
        assertThat(to.directConfig().get("app.json").orElseThrow().content()).isEqualTo("{\"edited\": true}");
        assertThat(outcomes).filteredOn(o -> !o.step().item().id().equals("app.json"))
                .extracting(ConfigTransfer.Outcome::result).containsOnly("created");
    }

    @Test
    void withoutPruneAnImportLeavesTheConfigsTheFileLacks() throws Exception {
        String target = namespace();
        LodestarClient to = client(redis.uri(), target);
        to.config().set("app.old", "stale", ConfigFormat.TEXT);
        Path file = dir.resolve("configs.yaml");
        assertThat(lodestar(redis.uri(), seededNamespace(), "config", "export", file.toString()).exitCode()).isZero();

        CliJar.Result imported = lodestar(redis.uri(), target, "config", "import", file.toString());

        assertThat(imported.exitCode()).as(imported.toString()).isZero();
        assertThat(to.directConfig().get("app.old")).isPresent();
    }

    @Test
    void pruneRemovesTheTargetsConfigsOfThePrefixThatTheSourceLacksAndNoOthers() throws Exception {
        // given a target with a config of the prefix the source lacks, and one outside the prefix
        String target = namespace();
        LodestarClient to = client(redis.uri(), target);
        to.config().set("app.old", "stale", ConfigFormat.TEXT);
        to.config().set("else.kept", "mine", ConfigFormat.TEXT);
        Path file = dir.resolve("configs.yaml");
        assertThat(lodestar(redis.uri(), seededNamespace(), "config", "export", file.toString()).exitCode()).isZero();

        // when the file's "app." configs are imported with --prune
        CliJar.Result imported = lodestar(redis.uri(), target, "config", "import", file.toString(), "--prefix",
                "app.", "--prune", "-o", "json");

        // then the stale one is removed (its history kept), the one outside the prefix stays
        assertThat(imported.exitCode()).as(imported.toString()).isZero();
        Map<String, String> results = new TreeMap<>();
        imported.json().forEach(row -> results.put(row.get("id").asText(), row.get("result").asText()));
        assertThat(results).containsEntry("app.old", "removed").doesNotContainKey("else.kept")
                .doesNotContainKey("other.props");
        assertThat(to.directConfig().get("app.old")).isEmpty();
        assertThat(to.config().history("app.old")).extracting(ConfigEntry::content).containsExactly("stale");
        assertThat(to.directConfig().get("else.kept")).isPresent();
        assertThat(to.config().list()).contains("app.yaml", "else.kept").doesNotContain("app.old", "other.props");
    }

    @Test
    void aPruningDryRunListsTheRemovalsAndRemovesNothing() {
        String source = seededNamespace();
        String target = namespace();
        LodestarClient to = client(redis.uri(), target);
        to.config().set("app.old", "stale", ConfigFormat.TEXT);

        CliJar.Result dryRun = lodestar(redis.uri(), source, "config", "copy", "--to-namespace", target,
                "--prune", "--dry-run");

        assertThat(dryRun.exitCode()).as(dryRun.toString()).isZero();
        assertThat(dryRun.out()).contains("--- app.old (version 1, text)",
                "+++ app.old (absent from the source: removed)", "- stale",
                "6 to create, 0 to update, 1 to remove, 0 unchanged; nothing written");
        assertThat(to.directConfig().get("app.old")).isPresent();
    }

    @Test
    void aWriteOfAPrunedConfigBetweenPlanAndRemoveIsAConflictAndIsKept() {
        // given a prune planned against the target's version 1 of a config the source lacks
        LodestarClient to = client(redis.uri(), namespace());
        to.config().set("app.old", "stale", ConfigFormat.TEXT);
        List<ConfigTransfer.Step> plan = ConfigTransfer.prune(to.config(), to.directConfig(), List.of(), "app.");

        // when someone writes it before the plan is carried out
        to.config().set("app.old", "revived", ConfigFormat.TEXT);
        List<ConfigTransfer.Outcome> outcomes = ConfigTransfer.apply(to.config(), plan);

        // then the remove is a conflict naming the version written, and the write stays
        assertThat(outcomes).extracting(ConfigTransfer.Outcome::result).containsExactly("conflict");
        assertThat(outcomes.get(0).version()).isEqualTo(2);
        assertThat(to.directConfig().get("app.old").orElseThrow().content()).isEqualTo("revived");
    }

    @Test
    void aConflictIsReportedAndExitsWithTwo() {
        // given a plan made while the target did not hold the config
        LodestarClient to = client(redis.uri(), namespace());
        List<ConfigTransfer.Step> stale = ConfigTransfer.plan(to.directConfig(), List.of(
                new ConfigTransfer.Item("app", ConfigFormat.TEXT, "new", 1, ConfigFile.sha1("new"))));
        to.config().set("app", "created meanwhile", ConfigFormat.TEXT);

        // when the command's writing step carries it out
        StringWriter printed = new StringWriter();
        int exitCode = ConfigTransfer.write(new Output(Output.Format.TABLE, new PrintWriter(printed)), to.config(),
                stale, "namespace prod");

        // then it exits with the conflict code, says so, and the content written meanwhile stays
        assertThat(exitCode).isEqualTo(ExitCodes.CONFLICT);
        assertThat(printed.toString()).contains("conflict", "1 of 1 configs changed in namespace prod while this ran");
        assertThat(to.directConfig().get("app").orElseThrow().content()).isEqualTo("created meanwhile");
    }
}
