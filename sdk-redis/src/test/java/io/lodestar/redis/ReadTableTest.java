package io.lodestar.redis;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The read path's table: a map of ids to values, lock-free reads that never see another id's value. */
class ReadTableTest {
    @Test
    void holdsWhatWasPutUntilRemoved() {
        ReadTable<String> table = new ReadTable<>();

        table.put("orders", "v1");
        table.put("payments", "p1");
        table.put("orders", "v2");

        assertThat(table.get("orders")).isEqualTo("v2");
        assertThat(table.get("payments")).isEqualTo("p1");
        assertThat(table.get("missing")).isNull();
        assertThat(table.size()).isEqualTo(2);

        table.put("orders", null);

        assertThat(table.get("orders")).isNull();
        assertThat(table.size()).isEqualTo(1);
        table.put("orders", "v3");
        assertThat(table.get("orders")).as("an id taken again").isEqualTo("v3");
    }

    @Test
    void findsAnIdByEqualityNotOnlyIdentity() {
        ReadTable<String> table = new ReadTable<>();
        table.put(new String("orders"), "v1");

        assertThat(table.get(new String("orders"))).isEqualTo("v1");
    }

    @Test
    void removingAnAbsentIdChangesNothing() {
        ReadTable<String> table = new ReadTable<>();

        table.put("orders", null);

        assertThat(table.size()).isZero();
        assertThat(table.get("orders")).isNull();
    }

    @Test
    void growsWithItsValuesAndDropsDeadIdsWhenItRehashes() {
        ReadTable<Integer> table = new ReadTable<>();
        for (int i = 0; i < 10_000; i++) {
            table.put("svc-" + i, i);
        }
        for (int i = 0; i < 10_000; i++) {
            assertThat(table.get("svc-" + i)).isEqualTo(i);
        }
        assertThat(table.capacity()).as("at most half full").isGreaterThanOrEqualTo(20_000);

        // when most are removed and other ids come and go, the dead ids do not fill the table
        for (int i = 100; i < 10_000; i++) {
            table.put("svc-" + i, null);
        }
        for (int round = 0; round < 10; round++) {
            for (int i = 0; i < 1_000; i++) {
                table.put("other-" + round + "-" + i, i);
            }
            for (int i = 0; i < 1_000; i++) {
                table.put("other-" + round + "-" + i, null);
            }
        }

        assertThat(table.size()).isEqualTo(100);
        assertThat(table.capacity()).as("rehashed to its live values").isLessThan(20_000);
        for (int i = 0; i < 100; i++) {
            assertThat(table.get("svc-" + i)).isEqualTo(i);
        }
        assertThat(table.get("svc-100")).isNull();
    }

    @Test
    void clearRemovesEverything() {
        ReadTable<String> table = new ReadTable<>();
        table.put("orders", "v1");

        table.clear();

        assertThat(table.get("orders")).isNull();
        assertThat(table.size()).isZero();
    }

    @Test
    void aReaderNeverSeesAnotherIdsValueWhileTheTableGrowsAndChanges() throws InterruptedException {
        // given readers of ids whose value always names the id
        ReadTable<String> table = new ReadTable<>();
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<String> wrong = new AtomicReference<>();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            readers.add(new Thread(() -> {
                while (!done.get()) {
                    for (int i = 0; i < 2_000; i++) {
                        String id = "svc-" + i;
                        String value = table.get(id);
                        if (value != null && !value.startsWith(id + "@")) {
                            wrong.compareAndSet(null, id + " -> " + value);
                        }
                    }
                }
            }));
        }
        readers.forEach(Thread::start);

        // when a writer adds, replaces and removes them, growing and rehashing the table
        for (int round = 0; round < 50; round++) {
            for (int i = 0; i < 2_000; i++) {
                table.put("svc-" + i, "svc-" + i + "@" + round);
            }
            for (int i = round % 2; i < 2_000; i += 2) {
                table.put("svc-" + i, null);
            }
        }
        done.set(true);
        for (Thread reader : readers) {
            reader.join(10_000);
        }

        // then no reader saw a value of another id
        assertThat(wrong.get()).isNull();
        assertThat(table.get("svc-0")).isEqualTo("svc-0@49");
        assertThat(table.get("svc-1")).isNull();
    }
}
