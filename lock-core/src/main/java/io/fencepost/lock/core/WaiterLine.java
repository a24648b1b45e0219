package io.fencepost.lock.core;

import io.fencepost.lock.spi.HandOver;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The callers of one manager waiting for one key, in arrival order. Only the head of the line talks to the store, so
 * the others wait without any store traffic. A release by a local holder can hand the lease straight to the first
 * waiter in line: one store statement instead of a release and an acquire, and no window in which another process
 * could slip in, unless other processes are waiting too (see {@link #MAX_LOCAL_STREAK}).
 */
final class WaiterLine {

    /**
     * How many hand-overs in a row may stay in this JVM while the store says that others (other processes) wait
     * for the key; the next release then frees the key for them. Bounds how long a remote waiter waits behind a
     * busy local line, at the price of one slower, cross-process hand-off in every {@code MAX_LOCAL_STREAK + 1}.
     */
    static final int MAX_LOCAL_STREAK = 3;

    /**
     * After freeing a key for waiters elsewhere, how long the local head of the line holds back before trying again,
     * when it is not registered with the store (a registered head does not hold back: the release handed the key to the
     * oldest registration, if any, in its own statement): long enough for a remote waiter to be woken by the store's
     * notification and send its acquire. The remote
     * process then keeps the key for a time slice of about this length, since its hand-overs do not count as
     * contended until our waiter has asked again: a longer hold-back raises throughput (fewer slow cross-process
     * hand-offs) and lengthens the other process's waits. docs/benchmarks.md compares the values tried.
     */
    static final long COURTESY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** Wake-ups for the head of the line: a local release, a lost lease, or a store push. */
    private final Semaphore wakeUps = new Semaphore(0);

    /** Callers in arrival order; the first one has the turn. Guarded by {@code this}. */
    private final ArrayDeque<Waiter> line = new ArrayDeque<>();

    /** Consecutive local hand-overs during which others waited elsewhere; guarded by {@code this}. */
    private int localStreak;

    /** Until when (nanoTime) the head holds back after the key was freed for others; guarded by {@code this}. */
    private long courtesyUntil;

    private boolean courtesyPending;

    /** One caller in the line, and the lease a releasing holder may hand to it. */
    static final class Waiter {

        /** The call a handed-over lease is granted to; null for a caller that takes no hand-over. */
        final AcquireCall call;

        /**
         * The owner token a handed-over lease gets, made by the releasing thread when it claims this waiter (a
         * waiter that never receives a hand-over costs no random token); read after {@link #claim},
         * {@link #take} or {@link #leave}, which publish it.
         */
        String ownerToken;

        /** A releasing thread is running the hand-over statement for this waiter. */
        private boolean claimed;

        private Optional<HandOver> handed = Optional.empty();

        private boolean taken;

        /** When the hand-over statement was sent (nanoTime): the new lease cannot have started earlier. */
        long sentNanos;

        Waiter(AcquireCall call) {
            this.call = call;
        }
    }

    /** Gets in line; {@code call} null for a caller that does not wait and so takes no hand-over. */
    synchronized Waiter join(AcquireCall call) {
        Waiter waiter = new Waiter(call);
        line.addLast(waiter);
        return waiter;
    }

    /**
     * Waits until {@code waiter} is first in line, or a lease was handed to it; false when {@code nanos} passed
     * first.
     */
    synchronized boolean awaitTurn(Waiter waiter, long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        while (line.peekFirst() != waiter && waiter.handed.isEmpty()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
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

    /**
     * A releasing local holder picks the first waiter in line that takes hand-overs; it must then
     * {@link #complete} the hand-over. Null when nobody waits, or when others have waited elsewhere for
     * {@link #MAX_LOCAL_STREAK} hand-overs in a row: the key is then released for them, and the head of the
     * line holds back for {@link #COURTESY_NANOS}.
     */
    synchronized Waiter claim() {
        for (Waiter waiter : line) {
            if (waiter.call != null && !waiter.claimed) {
                if (localStreak >= MAX_LOCAL_STREAK) {
                    localStreak = 0;
                    courtesyPending = true;
                    courtesyUntil = System.nanoTime() + COURTESY_NANOS;
                    return null;
                }
                waiter.claimed = true;
                if (waiter.ownerToken == null) {
                    waiter.ownerToken = UUID.randomUUID().toString();
                }
                waiter.sentNanos = System.nanoTime();
                return waiter;
            }
        }
        return null;
    }

    /**
     * The owner token a lease handed to {@code waiter} will get, made now if no releasing thread made it yet: a waiter
     * that registers with the store uses the same token, so that a local hand-over also ends its registration.
     */
    synchronized String ownerToken(Waiter waiter) {
        if (waiter.ownerToken == null) {
            waiter.ownerToken = UUID.randomUUID().toString();
        }
        return waiter.ownerToken;
    }

    /**
     * The releasing thread reports the hand-over's outcome: empty when it could not be made.
     *
     * @param othersMayWait whether others may wait elsewhere although the store's answer does not say so
     */
    synchronized void complete(Waiter waiter, Optional<HandOver> handed, boolean othersMayWait) {
        if (handed.isPresent()) {
            waiter.handed = handed;
            localStreak = handed.get().othersWaiting() || othersMayWait ? localStreak + 1 : 0;
        } else {
            waiter.claimed = false; // nothing changed; a later release may try again
        }
        notifyAll();
    }

    /**
     * The lease handed to {@code waiter}, which from now on belongs to the caller; waits for a hand-over in
     * progress (one statement, bounded by the statement timeout). Empty when nothing was handed over.
     */
    synchronized Optional<HandOver> take(Waiter waiter) {
        awaitHandOver(waiter);
        if (waiter.handed.isEmpty() || waiter.taken) {
            return Optional.empty();
        }
        waiter.taken = true;
        return waiter.handed;
    }

    /**
     * Leaves the line, after any hand-over in progress to {@code waiter} ends. Returns a lease that was handed
     * to it and not taken: the caller gave up, and must release it.
     */
    synchronized Optional<HandOver> leave(Waiter waiter) {
        awaitHandOver(waiter);
        line.remove(waiter);
        notifyAll();
        return waiter.taken ? Optional.empty() : waiter.handed;
    }

    private void awaitHandOver(Waiter waiter) {
        boolean interrupted = false;
        while (waiter.claimed && waiter.handed.isEmpty()) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** How long the head should still hold back for waiters elsewhere; 0 when it need not. */
    synchronized long courtesyLeftNanos() {
        if (!courtesyPending) {
            return 0;
        }
        long left = courtesyUntil - System.nanoTime();
        if (left <= 0) {
            courtesyPending = false;
            return 0;
        }
        return left;
    }
}
