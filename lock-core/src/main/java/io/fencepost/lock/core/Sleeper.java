package io.fencepost.lock.core;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** Sleeps a background thread until a planned time, or earlier when something new needs it sooner. */
final class Sleeper {

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition changed = lock.newCondition();

    private boolean sleeping;

    private long wakeAt;

    /** An earlier wake-up asked for while the thread was working; applied when it next sleeps. */
    private boolean hasPending;

    private long pending;

    /** Sleeps until {@code nanos} ({@link System#nanoTime()}), or an earlier time asked for meanwhile. */
    void sleepUntil(long nanos) throws InterruptedException {
        lock.lock();
        try {
            wakeAt = nanos;
            sleeping = true;
            while (true) {
                if (hasPending) {
                    if (pending - wakeAt < 0) {
                        wakeAt = pending;
                    }
                    hasPending = false;
                }
                long wait = wakeAt - System.nanoTime();
                if (wait <= 0) {
                    return;
                }
                changed.awaitNanos(wait);
            }
        } finally {
            sleeping = false;
            lock.unlock();
        }
    }

    /** Makes sure the thread looks again no later than {@code nanos}. */
    void wakeIfLaterThan(long nanos) {
        lock.lock();
        try {
            if (sleeping && nanos - wakeAt >= 0) {
                return; // it wakes in time anyway, and then sees what is new
            }
            if (!hasPending || nanos - pending < 0) {
                pending = nanos;
                hasPending = true;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
