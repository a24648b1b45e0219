package io.fencepost.lock.core;

import io.fencepost.lock.HeldLeaseInfo;
import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.internal.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A lease this manager holds: the state shared by every reentrant {@link LeaseHold} on it, and what renewal and the
 * loss watchdog work on. It changes only through its own methods. Timing uses the monotonic clock; the store's
 * timestamps are only reported.
 */
final class HeldLease {

    enum State {
        HELD,
        RELEASED,
        LOST
    }

    final String key;

    final long fencingToken;

    final LockOptions options;

    final Thread ownerThread;

    /** When the acquiring statement was sent: the store's lease cannot have started before this. */
    final long grantSentNanos;

    private final String ownerToken;

    private final AtomicInteger holds = new AtomicInteger(1);

    private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

    private final Instant acquiredAt;

    private volatile Instant expiresAt;

    private volatile long safeDeadlineNanos;

    private volatile long nextRenewalNanos;

    private volatile String lostReason;

    private final List<LostCallback> lostCallbacks = new CopyOnWriteArrayList<>();

    private volatile long renewals;

    private volatile boolean renewalsEnded;

    /**
     * One store call at a time moves the end of this lease (a background renewal or the holder's extend), so that the
     * confirmation recorded last is the one the store applied last: otherwise a longer renewal recorded after a
     * shorter extend that the store applied later would leave our deadline after the store's expiry.
     */
    private final ReentrantLock endMoves = new ReentrantLock();

    /** The lease time renewals ask for: the options' until {@link #extended} sets another. */
    private volatile Duration leaseTime;

    /**
     * How long after its acquisition (store clock) the store keeps the key locked, which renewals and releases ask of
     * it: the options' minimum hold, until an extension with a minimum hold of its own asks for a later end.
     */
    private volatile Duration minHoldTime;

    /** By our clock, no later than the store's end of the minimum hold: a deadline the lease lasts at least until. */
    private volatile long minHoldFloorNanos;

    /** By our clock, no earlier than the store's end of the minimum hold: a release from then on frees the key. */
    private volatile long minHoldPassedNanos;

    HeldLease(
            String key,
            String ownerToken,
            long fencingToken,
            LockOptions options,
            Instant acquiredAt,
            Instant expiresAt,
            long grantSentNanos) {
        this.key = key;
        this.ownerToken = ownerToken;
        this.fencingToken = fencingToken;
        this.options = options;
        this.acquiredAt = acquiredAt;
        this.grantSentNanos = grantSentNanos;
        this.ownerThread = Thread.currentThread();
        this.leaseTime = options.leaseTime();
        this.minHoldTime = options.minHoldTime();
        this.minHoldFloorNanos = grantSentNanos + options.minHoldTime().toNanos();
        this.minHoldPassedNanos = minHoldFloorNanos;
        confirmed(grantSentNanos, options.leaseTime(), expiresAt, Long.MIN_VALUE);
    }

    String ownerToken() {
        return ownerToken;
    }

    Instant acquiredAt() {
        return acquiredAt;
    }

    Instant expiresAt() {
        return expiresAt;
    }

    State state() {
        return state.get();
    }

    long safeDeadlineNanos() {
        return safeDeadlineNanos;
    }

    long nextRenewalNanos() {
        return nextRenewalNanos;
    }

    /** Whether renewal has stopped for good: renewal is off, or a renewal reached the max hold time. */
    boolean renewalsEnded() {
        return renewalsEnded || !options.renew();
    }

    /**
     * Records that the store confirmed the lease for {@code leaseTime} by a request sent at {@code sentNanos}. The
     * local deadline counts from the send, so the store's own expiry is never earlier than ours.
     */
    private void confirmed(long sentNanos, Duration leaseTime, Instant newExpiresAt, long floorNanos) {
        long leaseNanos = leaseTime.toNanos();
        long end = Math.max(sentNanos + leaseNanos, floorNanos);
        // Clock rates of the JVM and the database differ by parts per million; 1% (at least 1ms) is ample.
        long driftMarginNanos = Math.max(1_000_000L, (end - sentNanos) / 100);
        this.expiresAt = newExpiresAt;
        this.safeDeadlineNanos = end - driftMarginNanos;
        this.nextRenewalNanos = sentNanos + leaseNanos / 3;
    }

    /** A renewal sent at {@code sentNanos} for {@code leaseTime} was confirmed until {@code newExpiresAt}. */
    void renewed(long sentNanos, Duration leaseTime, Instant newExpiresAt) {
        confirmed(sentNanos, leaseTime, newExpiresAt, minHoldFloorNanos);
        renewals++;
        if (leaseTime.compareTo(this.leaseTime) < 0) {
            renewalsEnded = true; // this renewal reached the max hold time
        }
    }

    /**
     * The holder moved the end of the lease: a request sent at {@code sentNanos} for {@code leaseTime} was confirmed
     * until {@code newExpiresAt}, answered at {@code answeredNanos}, and renewals go on with that lease time. A
     * positive {@code minHoldTime} (at most {@code leaseTime}) keeps the key locked until that long after the store's
     * now of the extension, which the store's answer tells exactly: it ended the lease at that now plus
     * {@code leaseTime}, unless the minimum hold so far ends later, and then that one ends later than the new one too.
     */
    void extended(long sentNanos, long answeredNanos, Duration leaseTime, Duration minHoldTime, Instant newExpiresAt) {
        this.leaseTime = leaseTime;
        if (!minHoldTime.isZero()) {
            Duration heldUntil =
                    Duration.between(acquiredAt, newExpiresAt.minus(leaseTime).plus(minHoldTime));
            if (heldUntil.compareTo(this.minHoldTime) > 0) {
                this.minHoldTime = heldUntil;
            }
            // The store's now was after the send and before the answer.
            minHoldFloorNanos = Math.max(minHoldFloorNanos, sentNanos + minHoldTime.toNanos());
            minHoldPassedNanos = Math.max(minHoldPassedNanos, answeredNanos + minHoldTime.toNanos());
        }
        confirmed(sentNanos, leaseTime, newExpiresAt, minHoldFloorNanos);
    }

    /** How long after its acquisition (store clock) the store keeps the key locked, released or not. */
    Duration minHoldTime() {
        return minHoldTime;
    }

    /**
     * What a release at {@code nowNanos} asks the store to keep: the minimum hold while it may not have passed (the
     * store then decides by its clock), else zero, which frees the key at once.
     */
    Duration minHoldToKeep(long nowNanos) {
        return nowNanos - minHoldPassedNanos < 0 ? minHoldTime : Duration.ZERO;
    }

    /** Starts a store call that moves the end of the lease, unless one is under way; see {@link #endMoves}. */
    boolean tryStartMovingEnd() {
        return endMoves.tryLock();
    }

    /** Starts a store call that moves the end of the lease, after the one under way. */
    void startMovingEnd() {
        endMoves.lock();
    }

    /** The store call that moved the end of the lease has ended. */
    void endMovingEnd() {
        endMoves.unlock();
    }

    /** The lease time renewals ask for. */
    Duration leaseTime() {
        return leaseTime;
    }

    /** The kind of lease: exclusive, shared or one of a number of permits. */
    LeaseMode mode() {
        return options.mode();
    }

    /** No renewal can extend the lease any more (the max hold time is reached). */
    void endRenewals() {
        renewalsEnded = true;
    }

    /** Asks for the next renewal attempt sooner, after a store failure. */
    void retryRenewalAt(long nanos) {
        this.nextRenewalNanos = nanos;
    }

    boolean isHeld() {
        return state.get() == State.HELD && System.nanoTime() - safeDeadlineNanos < 0;
    }

    void checkHeld() {
        if (!isHeld()) {
            throw new LeaseLostException(key, fencingToken, describeNotHeld());
        }
    }

    String describeNotHeld() {
        return switch (state.get()) {
            case RELEASED -> "it was released";
            case LOST -> lostReason;
            case HELD -> "its lease ran out before the store confirmed a renewal";
        };
    }

    /** HELD → RELEASED; false when it was not held any more. */
    boolean markReleased() {
        return state.compareAndSet(State.HELD, State.RELEASED);
    }

    /** HELD → LOST, once; false when it was already released or lost. */
    boolean markLost(String reason) {
        if (state.compareAndSet(State.HELD, State.LOST)) {
            lostReason = reason;
            return true;
        }
        return false;
    }

    /** Registers a loss callback; runs it at once if the lease is already lost. */
    void onLost(Consumer<? super LeaseLostException> listener) {
        LostCallback callback = new LostCallback(listener);
        lostCallbacks.add(callback);
        if (state.get() == State.LOST) {
            callback.fire(lostException());
        }
    }

    /** Runs every loss callback once; called after {@link #markLost} succeeded. */
    void fireLost() {
        LeaseLostException exception = lostException();
        for (LostCallback callback : lostCallbacks) {
            callback.fire(exception);
        }
    }

    private LeaseLostException lostException() {
        return new LeaseLostException(key, fencingToken, lostReason);
    }

    /** Adds a reentrant hold; false when the lease is no longer held. */
    boolean tryReenter() {
        if (!isHeld()) {
            return false;
        }
        holds.incrementAndGet();
        return true;
    }

    /** Ends one hold; true when it was the last one. */
    boolean dropHold() {
        return holds.decrementAndGet() == 0;
    }

    /** How long renewal may still extend the lease, given the max hold time. */
    Duration renewableFor(long nowNanos) {
        long left = options.maxHoldTime().toNanos() - (nowNanos - grantSentNanos);
        return Duration.ofNanos(Math.min(left, leaseTime.toNanos()));
    }

    /** Why the watchdog saw the safe deadline pass. */
    String whyExpired() {
        if (!options.renew()) {
            return "its lease time of " + Durations.readable(leaseTime) + " ran out (renewal is off)";
        }
        if (renewalsEnded) {
            return "its max hold time of " + Durations.readable(options.maxHoldTime()) + " was reached";
        }
        return "the store did not confirm a renewal before the lease's safe deadline";
    }

    /** What operators and endpoints see of it: no owner token. */
    HeldLeaseInfo info() {
        return new HeldLeaseInfo(
                key,
                options.name(),
                fencingToken,
                acquiredAt,
                expiresAt,
                holds.get(),
                renewals,
                ownerThread.getName(),
                options.mode(),
                options.shared() ? 0 : options.permits());
    }

    /** A loss callback that runs at most once, whichever of registration and loss comes second. */
    private static final class LostCallback {

        private final Consumer<? super LeaseLostException> listener;

        private final AtomicBoolean fired = new AtomicBoolean();

        LostCallback(Consumer<? super LeaseLostException> listener) {
            this.listener = listener;
        }

        void fire(LeaseLostException exception) {
            if (fired.compareAndSet(false, true)) {
                try {
                    listener.accept(exception);
                } catch (RuntimeException e) {
                    System.getLogger(HeldLease.class.getName())
                            .log(System.Logger.Level.WARNING, "a lease-lost callback failed", e);
                }
            }
        }
    }

    @Override
    public String toString() {
        // No owner token here: it is a secret.
        return "Lease[key=" + key + ", fencingToken=" + fencingToken + ", state=" + state.get() + "]";
    }
}
