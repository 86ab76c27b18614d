package io.lodestar.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The console's record of writes: the printed line, the entries kept for the page, the entries published. */
class AuditLogTest {
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final List<Map<String, Object>> published = new ArrayList<>();
    private final AuditLog audit = new AuditLog(new PrintStream(printed, true, StandardCharsets.UTF_8), false,
            published::add);

    @Test
    void aWriteIsPrintedWithWhoWhatItsTargetAndHowItEnded() {
        audit.record("alice@127.0.0.1", "prod", "instance.evict", Map.of("service", "orders", "id", "orders-1"),
                "done: orders/orders-1");

        assertThat(printed.toString(StandardCharsets.UTF_8)).matches("\\S+ AUDIT who=alice@127.0.0.1"
                + " action=instance.evict target=orders/orders-1 done: orders/orders-1\\R");
        assertThat(published).singleElement().satisfies(entry -> assertThat(entry)
                .containsEntry("target", "orders/orders-1").containsEntry("outcome", "done: orders/orders-1"));
    }

    @Test
    void theNewestEntriesAreKeptNewestFirst() {
        for (int i = 0; i < AuditLog.KEPT + 5; i++) {
            audit.record("alice@127.0.0.1", "prod", "config.set", Map.of("id", "config-" + i), "done");
        }

        List<Map<String, Object>> kept = audit.entries("prod");
        assertThat(kept).hasSize(AuditLog.KEPT);
        assertThat(kept.get(0)).containsEntry("target", "config-" + (AuditLog.KEPT + 4));
        assertThat(kept.get(kept.size() - 1)).containsEntry("target", "config-5");
    }

    @Test
    void aLineBreakFromTheRequestCannotStartAnotherLine() {
        audit.record("anonymous@127.0.0.1", "prod", "config.set", Map.of("id", "x\nT AUDIT who=admin"), "refused: no token");

        assertThat(printed.toString(StandardCharsets.UTF_8).lines()).hasSize(1);
    }

    @Test
    void eachNamespaceKeepsItsOwnEntries() {
        audit.record("alice@127.0.0.1", "prod", "config.set", Map.of("id", "a"), "done");
        audit.record("alice@127.0.0.1", "staging", "config.set", Map.of("id", "b"), "done");

        assertThat(audit.entries("prod")).extracting(entry -> entry.get("target")).containsExactly("a");
        assertThat(audit.entries("staging")).extracting(entry -> entry.get("target")).containsExactly("b");
        assertThat(audit.entries("dev")).isEmpty();
    }

    @Test
    void aConsoleOfSeveralNamespacesNamesTheNamespaceInEachLine() {
        AuditLog namespaced = new AuditLog(new PrintStream(printed, true, StandardCharsets.UTF_8), true,
                published::add);

        namespaced.record("alice@127.0.0.1", "prod", "config.set", Map.of("id", "a"), "done");

        assertThat(printed.toString(StandardCharsets.UTF_8)).matches("\\S+ AUDIT who=alice@127.0.0.1 namespace=prod"
                + " action=config.set target=a done\\R");
    }
}
