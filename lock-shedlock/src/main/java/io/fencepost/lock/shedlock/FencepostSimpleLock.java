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

    private final AtomicBoolean valid = new AtomicBoolean(true);

    private FencepostSimpleLock(Lease lease) {
        this.lease = lease;
    }

    /** A lock on a lease just taken: the current thread's task now runs under it. */
    static FencepostSimpleLock taken(Lease lease) {
        CurrentLeases.push(lease);
        return new FencepostSimpleLock(lease);
    }

    /**
     * Ends the lease; the store keeps the key locked until the later of the first lock's {@code lockAtLeastFor} and
     * that of the last extension that asked for one.
     */
    @Override
    public void unlock() {
        retire("unlocked");
        CurrentLeases.remove(lease);
        lease.close(); // a store outage is not the task's failure: the lease then ends on its own
    }

    /**
     * One owner-checked store call ({@link Lease#extend(Duration, Duration)}): the lease then ends
     * {@code lockAtMostFor} after the store's now, and the key stays locked until {@code lockAtLeastFor} after it.
     */
    @Override
    public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
        if (!valid.get()) {
            throw new IllegalStateException("ShedLock lock '" + lease.key()
                    + "' was unlocked or extended already: extend the lock that the last extend returned");
        }
        boolean extended;
        try {
            extended = lease.extend(lockAtMostFor, lockAtLeastFor);
        } catch (LockStoreException e) {
            return Optional.empty(); // maybe still held: this lock stays valid, and the task may try again
        }
        if (!extended || !valid.compareAndSet(true, false)) {
            return Optional.empty();
        }
        return Optional.of(new FencepostSimpleLock(lease));
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
