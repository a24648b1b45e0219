package io.fencepost.lock.core;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Per-key queue inside one manager: only the thread holding the turn talks to the store about the key; the
 * others wait here, in arrival order, without touching the database.
 */
final class KeyGate {

    /** Fair, so local waiters get the key in arrival order. Not a lock: it may be released by any thread. */
    private final Semaphore turn = new Semaphore(1, true);

    /** Wake-ups for the thread holding the turn: a local release, a lost lease, or a store push. */
    private final Semaphore wakeUps = new Semaphore(0);

    /** Threads currently using this gate; guarded by the manager's map operations. */
    int users;

    boolean awaitTurn(long nanos) throws InterruptedException {
        return nanos <= 0 ? turn.tryAcquire() : turn.tryAcquire(nanos, TimeUnit.NANOSECONDS);
    }

    void leaveTurn() {
        turn.release();
    }

    /** Waits up to {@code nanos} for a wake-up; true when woken early. */
    boolean awaitWakeUp(long nanos) throws InterruptedException {
        boolean woken = wakeUps.tryAcquire(Math.max(0, nanos), TimeUnit.NANOSECONDS);
        wakeUps.drainPermits();
        return woken;
    }

    void wake() {
        if (wakeUps.availablePermits() == 0) {
            wakeUps.release();
        }
    }
}
