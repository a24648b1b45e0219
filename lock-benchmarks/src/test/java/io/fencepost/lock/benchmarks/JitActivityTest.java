package io.fencepost.lock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class JitActivityTest {

    @Test
    void aWindowStartsOnlyOnceEveryWatchedCompilerHasStoppedAndCountsWhatComesAfter() throws Exception {
        JitActivity jit = new JitActivity();
        AtomicLong other = new AtomicLong();
        // a second JVM whose compiler keeps working for its first 12 polls (about 300 ms)
        AtomicLong polls = new AtomicLong();
        try (JitActivity.Watch watch =
                jit.watch(() -> polls.incrementAndGet() <= 12 ? other.addAndGet(40) : other.get())) {
            long started = System.nanoTime();
            jit.awaitQuiet();
            long waitedMillis = (System.nanoTime() - started) / 1_000_000;

            assertThat(polls.get()).isGreaterThan(12);
            assertThat(waitedMillis).isGreaterThanOrEqualTo(12 * 25);
            long ownBefore = JitActivity.ownMillis();
            other.addAndGet(70);
            assertThat(jit.sinceMark())
                    .isGreaterThanOrEqualTo(70)
                    .isLessThan(70 + JitActivity.ownMillis() - ownBefore + 1_000);
        }
        long afterClose = jit.millis();
        other.addAndGet(1_000);
        assertThat(jit.millis() - afterClose).isLessThan(1_000);
    }
}
