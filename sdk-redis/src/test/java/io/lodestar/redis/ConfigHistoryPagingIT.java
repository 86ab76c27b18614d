package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A config's history can hold up to 1000 versions of up to 1 MiB: read in one reply it could reach a GiB. It is
 * read in pages of a bounded size instead, newest first, with nothing lost or repeated at a page boundary; so is
 * what a view replays when it catches up (read_config_since).
 */
class ConfigHistoryPagingIT extends PrivateRedisTest {
    private static final int CONTENT_BYTES = 1_000_000;

    @Test
    void aLargeHistoryIsReadInBoundedPagesNewestFirst() {
        LodestarClient client = clients.connect(options -> options.configHistoryLimit(12));
        int versions = 10; // about 10 MB: more than two pages
        for (int v = 1; v <= versions; v++) {
            client.config().set("big", Character.toString('a' + v).repeat(CONTENT_BYTES), ConfigFormat.TEXT);
        }
        ConfigReads reads = new ConfigReads(((RedisLodestarClient) client).backend, keys());

        List<ConfigEntry> history = reads.history("big").toCompletableFuture().join();

        assertThat(history).extracting(ConfigEntry::version).containsExactly(10L, 9L, 8L, 7L, 6L, 5L, 4L, 3L, 2L, 1L);
        assertThat(history.get(0).content()).startsWith("k").hasSize(CONTENT_BYTES);
        // a page closes once it holds the budget: 5 entries of ~1 MB pass 4 MiB, so 10 entries make 2 pages
        assertThat(reads.historyPages.sum()).as("replies of about %d bytes", ConfigReads.HISTORY_PAGE_BYTES)
                .isEqualTo(2);
        assertThat(client.config().history("big")).isEqualTo(history);
    }

    @Test
    void aLongHistoryOfSmallVersionsIsReadWholeAndInOrder() {
        LodestarClient client = clients.connect(options -> options.configHistoryLimit(100));
        for (int v = 1; v <= 130; v++) {
            client.config().set("long", "v=" + v, ConfigFormat.PROPERTIES);
        }
        ConfigReads reads = new ConfigReads(((RedisLodestarClient) client).backend, keys());

        List<ConfigEntry> history = reads.history("long").toCompletableFuture().join();
        ConfigReads.Since missed = reads.since("long", 57).toCompletableFuture().join();

        // the newest 100 kept, newest first, in one page (read from the stream in growing batches)
        assertThat(history).extracting(ConfigEntry::version)
                .containsExactlyElementsOf(LongStream.rangeClosed(31, 130).map(v -> 161 - v).boxed().toList());
        assertThat(history).allSatisfy(entry -> assertThat(entry.content()).isEqualTo("v=" + entry.version()));
        assertThat(reads.historyPages.sum()).isEqualTo(1);
        assertThat(missed.oldestKept()).isEqualTo(31);
        assertThat(missed.newer()).extracting(kept -> kept.entry().version())
                .containsExactlyElementsOf(LongStream.rangeClosed(58, 130).boxed().toList());
    }

    @Test
    void aSmallHistoryIsOneReply() {
        LodestarClient client = clients.connect();
        client.config().set("small", "a", ConfigFormat.TEXT);
        client.config().set("small", "b", ConfigFormat.TEXT);
        ConfigReads reads = new ConfigReads(((RedisLodestarClient) client).backend, keys());

        assertThat(reads.history("small").toCompletableFuture().join()).extracting(ConfigEntry::content)
                .containsExactly("b", "a");
        assertThat(reads.historyPages.sum()).isEqualTo(1);
    }

    @Test
    void whatAViewReplaysIsReadInBoundedPagesOldestFirst() {
        LodestarClient client = clients.connect(options -> options.configHistoryLimit(12));
        for (int v = 1; v <= 10; v++) {
            client.config().set("big", Character.toString('a' + v).repeat(CONTENT_BYTES), ConfigFormat.TEXT);
        }
        ConfigReads reads = new ConfigReads(((RedisLodestarClient) client).backend, keys());

        ConfigReads.Since missed = reads.since("big", 1).toCompletableFuture().join(); // a view holding version 1

        assertThat(missed.newer()).extracting(kept -> kept.entry().version())
                .containsExactly(2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
        assertThat(missed.newer()).allSatisfy(kept -> assertThat(kept.entry().content()).hasSize(CONTENT_BYTES));
        assertThat(missed.state().revision()).isEqualTo(10);
        assertThat(missed.state().value()).hasValueSatisfying(entry -> {
            assertThat(entry.version()).isEqualTo(10);
            assertThat(entry.content()).startsWith("k");
        });
        assertThat(missed.oldestKept()).isEqualTo(1);
        // 5 entries of ~1 MB pass 4 MiB: 9 entries make 2 pages, none near a reply of 9 MB
        assertThat(reads.sincePages.sum()).as("replies of about %d bytes", ConfigReads.HISTORY_PAGE_BYTES)
                .isEqualTo(2);
        assertThat(ConfigSource.replay("big", 1, missed)).hasSize(9);
    }

    @Test
    void aViewThatMissedNothingReadsOnePageWithTheCurrentEntry() {
        LodestarClient client = clients.connect();
        client.config().set("small", "a", ConfigFormat.TEXT);
        client.config().set("small", "b", ConfigFormat.TEXT);
        ConfigReads reads = new ConfigReads(((RedisLodestarClient) client).backend, keys());

        ConfigReads.Since missed = reads.since("small", 2).toCompletableFuture().join();

        assertThat(missed.newer()).isEmpty();
        assertThat(missed.state().value()).map(ConfigEntry::content).hasValue("b");
        assertThat(reads.sincePages.sum()).isEqualTo(1);
    }
}
