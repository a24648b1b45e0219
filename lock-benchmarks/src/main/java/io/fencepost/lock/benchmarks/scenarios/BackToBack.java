package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Samples;
import java.time.Duration;

/**
 * One thread making the same call back to back for a window, each call timed on its own: the latency of the calls
 * that did what the scenario measures, and how many did not (anomalies, which a sound run does not have).
 */
final class BackToBack {

    /** The call that is timed. */
    @FunctionalInterface
    interface Call<T> {
        T run() throws Exception;
    }

    /**
     * Looks at a call's outcome once the clock has stopped, cleaning up after it where it must; true when the call
     * did not do what is measured.
     */
    @FunctionalInterface
    interface Anomaly<T> {
        boolean check(T outcome) throws Exception;
    }

    private BackToBack() {}

    /** The calls as a cycle result whose acquire is the whole call and whose release is empty. */
    static <T> CycleResult run(Duration window, Call<T> call, Anomaly<T> anomaly) throws Exception {
        Samples calls = new Samples(64 * 1024);
        long anomalies = 0;
        long start = System.nanoTime();
        long end = start + window.toNanos();
        long now = start;
        while (now < end) {
            long t0 = System.nanoTime();
            T outcome = call.run();
            now = System.nanoTime();
            if (anomaly.check(outcome)) {
                anomalies++;
            } else {
                calls.add(now - t0);
            }
        }
        return CycleResult.of(calls.size(), now - start, calls, calls, new Samples(), anomalies);
    }
}
