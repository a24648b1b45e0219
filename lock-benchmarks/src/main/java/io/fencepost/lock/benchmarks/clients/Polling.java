package io.fencepost.lock.benchmarks.clients;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The retry loop the harness runs for libraries that only make single attempts (the raw SQL ceiling and ShedLock,
 * which has no waiting of its own): a fixed 5 ms sleep between attempts, as in the figures issue 8 started from.
 */
final class Polling {

    static final Duration INTERVAL = Duration.ofMillis(5);

    /** One attempt. */
    @FunctionalInterface
    interface Attempt {
        LockClient.Held attempt() throws Exception;
    }

    private Polling() {}

    static LockClient.Held until(Duration wait, Attempt attempt) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            LockClient.Held held = attempt.attempt();
            if (held != null) {
                return held;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(left, INTERVAL.toNanos()));
        }
    }
}
