package io.fencepost.lock.core;

import io.fencepost.lock.internal.OutageLog;
import io.fencepost.lock.spi.LockListener;
import io.fencepost.lock.spi.StoreSweeper;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a store's {@link StoreSweeper} on a background thread of the manager: one sweep per interval, and the next one
 * at once while batches come back full, so that a backlog drains in bounded statements without waiting an interval
 * for each.
 */
final class SweepLoop implements AutoCloseable {

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final StoreSweeper sweeper;

    private final LockListener listener;

    /** A store outage costs two lines, not one per interval; renewal already reports the outage that matters. */
    private final OutageLog outage = new OutageLog(
            System.getLogger(SweepLoop.class.getName()),
            "the lock store''s sweeper cannot reach the store ({0}); it tries again every interval",
            "the lock store''s sweeper reaches the store again after {0}");

    private final BackgroundLoop thread;

    /** When ({@link System#nanoTime()}) the first sweep is due: one interval after the manager started. */
    private long firstNanos;

    SweepLoop(StoreSweeper sweeper, LockListener listener) {
        this.sweeper = sweeper;
        this.listener = listener;
        // Not at once: a manager that starts does its first work for its callers, and short-lived managers (tests,
        // tools) never sweep at all.
        this.firstNanos = System.nanoTime() + intervalNanos();
        this.thread = new BackgroundLoop("fencepost-sweeper-" + THREADS.incrementAndGet(), this::work);
    }

    private long work() {
        long now = System.nanoTime();
        if (firstNanos != 0) {
            long first = firstNanos;
            firstNanos = 0;
            return first;
        }
        try {
            boolean more = sweeper.sweep(listener);
            outage.succeeded();
            return more ? now : System.nanoTime() + intervalNanos();
        } catch (RuntimeException e) {
            outage.failed(e);
            return System.nanoTime() + intervalNanos();
        }
    }

    private long intervalNanos() {
        Duration interval = sweeper.sweepInterval();
        try {
            return Math.max(1, interval.toNanos());
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4; // centuries: as good as never, without overflowing a deadline
        }
    }

    @Override
    public void close() {
        thread.close();
    }
}
