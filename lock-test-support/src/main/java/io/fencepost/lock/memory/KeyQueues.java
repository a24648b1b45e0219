package io.fencepost.lock.memory;

import io.fencepost.lock.spi.LockQueue;
import io.fencepost.lock.spi.ReleaseRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * The in-memory store's queues ({@link LockQueue}): per key, one turn that waiters take first come, first served, as
 * PostgreSQL's lock queue serves session advisory locks. A turn only orders the asking; the store's leases decide as
 * always. A key's queue exists only while somebody holds or waits for its turn, so one-shot keys leave nothing behind.
 */
final class KeyQueues {

    /** One key's queue: its turn, and how many hold or wait for it (guarded by the {@link KeyQueues}). */
    private static final class Line {
        final Semaphore turn = new Semaphore(1, true);
        int users;
    }

    private final Map<String, Line> lines = new HashMap<>();

    /** The store's release, which {@link LockQueue.Place#releaseAndLeave} runs before it leaves. */
    private final Predicate<ReleaseRequest> release;

    KeyQueues(Predicate<ReleaseRequest> release) {
        this.release = release;
    }

    /** As {@link LockQueue#enter}: an interrupted wait ends empty, with the thread's interrupt flag set again. */
    Optional<LockQueue.Place> enter(String key, Duration timeout) {
        Line line = join(key);
        boolean taken = false;
        boolean waited = false;
        try {
            // A timed try on a fair semaphore keeps the order; the untimed one would barge past the waiters.
            taken = line.turn.tryAcquire(0, TimeUnit.NANOSECONDS);
            if (!taken) {
                waited = true;
                taken = line.turn.tryAcquire(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (!taken) {
                quit(key, line);
            }
        }
        return taken ? Optional.of(new Turn(key, line, waited)) : Optional.empty();
    }

    private synchronized Line join(String key) {
        Line line = lines.computeIfAbsent(key, k -> new Line());
        line.users++;
        return line;
    }

    private synchronized void quit(String key, Line line) {
        if (--line.users == 0) {
            lines.remove(key, line);
        }
    }

    /** How many keys have a queue now: those somebody holds or waits for the turn of. */
    synchronized int size() {
        return lines.size();
    }

    /** A held turn of one key. */
    private final class Turn implements LockQueue.Place {

        private final String key;

        private final Line line;

        private final boolean waited;

        private final AtomicBoolean left = new AtomicBoolean();

        Turn(String key, Line line, boolean waited) {
            this.key = key;
            this.line = line;
            this.waited = waited;
        }

        @Override
        public boolean waitedBehindOthers() {
            return waited;
        }

        @Override
        public void leave() {
            if (!left.getAndSet(true)) {
                line.turn.release();
                quit(key, line);
            }
        }

        @Override
        public boolean releaseAndLeave(ReleaseRequest request) {
            try {
                return release.test(request);
            } finally {
                leave();
            }
        }
    }
}
