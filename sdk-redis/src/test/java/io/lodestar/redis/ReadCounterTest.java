package io.lodestar.redis;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The view's read counter: off until started, then exact on one thread, never more than the reads made on many. */
class ReadCounterTest {
    @Test
    void countsNothingUntilStarted() {
        ReadCounter counter = new ReadCounter();

        for (int i = 0; i < 1_000; i++) {
            counter.increment();
        }

        assertThat(counter.counting()).isFalse();
        assertThat(counter.sum()).isZero();
    }

    @Test
    void countsEveryReadOfOneThreadOnceStarted() {
        ReadCounter counter = new ReadCounter();
        counter.increment(); // before: not counted
        counter.start();

        for (int i = 0; i < 1_000; i++) {
            counter.increment();
        }

        assertThat(counter.sum()).isEqualTo(1_000);
    }

    @Test
    void neverCountsMoreThanTheReadsOfManyThreads() throws InterruptedException {
        ReadCounter counter = new ReadCounter();
        counter.start();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(new Thread(() -> IntStream.range(0, 100_000).forEach(i -> counter.increment())));
        }

        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join(10_000);
        }

        assertThat(counter.sum()).isPositive().isLessThanOrEqualTo(400_000);
    }

    @Test
    void threadsStartedTogetherCountOnDistinctStripes() {
        assertThat(IntStream.range(0, 32).map(id -> ReadCounter.stripe(1_000 + id)).distinct().count())
                .isEqualTo(32);
    }
}
