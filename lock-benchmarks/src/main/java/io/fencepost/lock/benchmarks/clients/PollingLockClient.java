package io.fencepost.lock.benchmarks.clients;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A library that only makes single attempts (the raw SQL ceiling, Fencepost's bare store, and ShedLock, which has no
 * waiting of its own), made to wait by the harness's retry loop: a fixed 5 ms sleep between attempts, as in the
 * comparison figures the benchmarks started from.
 */
abstract class PollingLockClient implements LockClient {

    static final Duration INTERVAL = Duration.ofMillis(5);

    @Override
    public final Held acquire(String key, Duration wait) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Held held = tryAcquire(key);
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

    @Override
    public void close() {}
}
