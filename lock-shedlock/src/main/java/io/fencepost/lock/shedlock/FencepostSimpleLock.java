package io.fencepost.lock.shedlock;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockStoreException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * One ShedLock lock on a Fencepost lease. An extension hands the lease to a new instance and retires this one, as
 * ShedLock's contract asks: a retired or unlocked lock can be neither unlocked nor extended again.
 */
final class FencepostSimpleLock implements SimpleLock {

    private final Lease lease;

    private final DelayedReleases delayedReleases;

    /**
     * Until when (monotonic clock) an unlock must keep the key locked because an extension asked for
     * {@code lockAtLeastFor}; {@code Long.MIN_VALUE} when no extension did. The lease's own minimum hold (the first
     * lock's {@code lockAtLeastFor}) is kept by the store at release.
     */
    private final long lockedAtLeastUntilNanos;

    private final AtomicBoolean valid = new AtomicBoolean(true);

    private FencepostSimpleLock(Lease lease, DelayedReleases delayedReleases, long lockedAtLeastUntilNanos) {
        this.lease = lease;
        this.delayedReleases = delayedReleases;
        this.lockedAtLeastUntilNanos = lockedAtLeastUntilNanos;
    }

    /** A lock on a lease just taken: the current thread's task now runs under it. */
    static FencepostSimpleLock taken(Lease lease, DelayedReleases delayedReleases) {
        CurrentLeases.push(lease);
        return new FencepostSimpleLock(lease, delayedReleases, Long.MIN_VALUE);
    }

    @Override
    public void unlock() {
        retire("unlocked");
        CurrentLeases.remove(lease);
        long leftNanos = lockedAtLeastUntilNanos - System.nanoTime();
        if (lockedAtLeastUntilNanos == Long.MIN_VALUE || leftNanos <= 0) {
            lease.close(); // a store outage is not the task's failure: the lease then ends on its own
            return;
        }
        delayedReleases.releaseAfter(lease, Duration.ofNanos(leftNanos));
    }

    @Override
    public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
        if (!valid.get()) {
            throw new IllegalStateException("ShedLock lock '" + lease.key()
                    + "' was unlocked or extended already: extend the lock that the" + " last extend returned");
        }
        long sentNanos = System.nanoTime();
        boolean extended;
        try {
            extended = lease.extend(lockAtMostFor);
        } catch (LockStoreException e) {
            return Optional.empty(); // maybe still held: this lock stays valid, and the task may try again
        }
        if (!extended || !valid.compareAndSet(true, false)) {
            return Optional.empty();
        }
        long atLeastUntil = lockAtLeastFor.isZero() || lockAtLeastFor.isNegative()
                ? Long.MIN_VALUE
                : sentNanos + lockAtLeastFor.toNanos();
        return Optional.of(new FencepostSimpleLock(lease, delayedReleases, atLeastUntil));
    }

    private void retire(String what) {
        if (!valid.compareAndSet(true, false)) {
            throw new IllegalStateException("ShedLock lock '" + lease.key() + "' was " + what
                    + " already, or replaced by the lock that extend returned");
        }
    }

    @Override
    public String toString() {
        return "FencepostSimpleLock[key=" + lease.key() + ", fencingToken=" + lease.fencingToken() + ", valid="
                + valid.get() + "]";
    }
}
