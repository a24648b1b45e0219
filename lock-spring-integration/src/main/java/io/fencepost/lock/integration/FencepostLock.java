package io.fencepost.lock.integration;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * One key's lock of a {@link FencepostLockRegistry}. A local reentrant lock lines up this process's threads and counts
 * the holding thread's holds; the outermost hold owns a Fencepost lease, which lines up the processes.
 */
final class FencepostLock implements DistributedLock {

    private final String key;

    private final FencepostLockRegistry registry;

    private final ReentrantLock local = new ReentrantLock();

    /** The lease of the current holds; read and written only by the thread that holds {@link #local}. */
    private Lease lease;

    private volatile long lastUsedNanos = System.nanoTime();

    FencepostLock(String key, FencepostLockRegistry registry) {
        this.key = key;
        this.registry = registry;
    }

    @Override
    public void lock() {
        lock(null);
    }

    @Override
    public void lock(Duration leaseTime) {
        local.lock();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (grant(leaseTime, LockOptions.MAX_DURATION)) {
                        return;
                    }
                } catch (LockNotAcquiredException e) {
                    // Lock.lock() is not interruptible: note the interrupt, wait on, and restore it at the end.
                    interrupted |= Thread.interrupted();
                }
            }
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        local.lockInterruptibly();
        try {
            while (!grant(null, LockOptions.MAX_DURATION)) {
                // the whole wait passed: wait again
            }
        } catch (LockNotAcquiredException e) {
            local.unlock();
            throw interruptedWhileWaiting(e);
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    @Override
    public boolean tryLock() {
        if (!local.tryLock()) {
            return false;
        }
        return grantOrUnlock(null, Duration.ZERO);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(unit.toNanos(time)), null);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long deadline = System.nanoTime() + Math.max(0, waitTime.toNanos());
        if (!local.tryLock(Math.max(0, waitTime.toNanos()), TimeUnit.NANOSECONDS)) {
            return false;
        }
        Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        try {
            return grantOrUnlock(leaseTime, left);
        } catch (LockNotAcquiredException e) {
            throw interruptedWhileWaiting(e);
        }
    }

    /**
     * Releases one hold; the last one releases the lease.
     *
     * @throws IllegalMonitorStateException when the current thread does not hold this lock
     * @throws ConcurrentModificationException when the lease had been lost before this unlock: another holder may have
     *     run meanwhile, and what the lock protected may need checking
     */
    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException(
                    "the current thread does not hold lock '" + key + "': only the holding thread unlocks it (a hold"
                            + " whose lease was lost ends when the thread next fails to lock it)");
        }
        lastUsedNanos = System.nanoTime();
        if (local.getHoldCount() > 1) {
            local.unlock();
            return;
        }
        Lease ending = lease;
        lease = null;
        boolean removed;
        try {
            removed = ending.release();
        } finally {
            local.unlock();
        }
        if (!removed) {
            throw new ConcurrentModificationException("lock '" + key + "' (fencing token " + ending.fencingToken()
                    + ") was lost before this unlock, since its lease ran out or was taken over: another holder may"
                    + " have run meanwhile, so check what it protects; a longer lease time keeps it");
        }
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException(
                "lock '" + key + "' is a distributed lock: conditions are not supported");
    }

    /** The lease of the current thread's holds, if it holds this lock. */
    Optional<Lease> currentLease() {
        return local.isHeldByCurrentThread() ? Optional.ofNullable(lease) : Optional.empty();
    }

    /** Moves the end of the current thread's lease; {@code null} keeps its lease time. */
    void renew(Duration leaseTime) {
        if (!local.isHeldByCurrentThread() || lease == null) {
            throw new IllegalMonitorStateException(
                    "the current thread does not hold lock '" + key + "': only the holding thread renews it");
        }
        Duration time = leaseTime != null ? leaseTime : registry.getLeaseTime();
        if (!lease.extend(time)) {
            throw new IllegalStateException("could not renew lock '" + key + "' (fencing token " + lease.fencingToken()
                    + "): its lease was lost, expired or released");
        }
    }

    /** How long this lock has been neither held nor used; zero while held. */
    long unusedFor(long nowNanos) {
        return local.isLocked() ? 0 : nowNanos - lastUsedNanos;
    }

    /**
     * With {@link #local} held: true when the current thread now holds the key in the store, either by a lease its
     * outer hold still has or by a new grant.
     */
    private boolean grant(Duration leaseTime, Duration waitTime) {
        lastUsedNanos = System.nanoTime();
        if (lease != null && lease.isHeld()) {
            return true; // an outer hold's lease: a reentrant hold
        }
        Optional<Lease> granted = registry.locks().tryAcquire(key, registry.options(leaseTime, waitTime));
        if (granted.isEmpty()) {
            return false;
        }
        if (lease != null) {
            lease.close(); // the outer holds' lost lease: they go on under the new one
        }
        lease = granted.get();
        return true;
    }

    /**
     * {@link #grant}, or else gives up this attempt's hold. When an outer hold's lease turned out to be lost, the
     * attempt ends every hold of this thread: the lease they shared is gone, and keeping them would keep the lock
     * object locked for good (a leader initiator that was revoked never unlocks its lost hold).
     */
    private boolean grantOrUnlock(Duration leaseTime, Duration waitTime) {
        boolean granted = false;
        try {
            granted = grant(leaseTime, waitTime);
            return granted;
        } finally {
            if (!granted) {
                if (lease != null) {
                    Lease lost = lease;
                    lease = null;
                    lost.close(); // it may still be ours in the store: removing it frees the key sooner
                    while (local.isHeldByCurrentThread()) {
                        local.unlock();
                    }
                } else {
                    local.unlock();
                }
            }
        }
    }

    private InterruptedException interruptedWhileWaiting(LockNotAcquiredException cause) {
        Thread.interrupted(); // the exception now carries the interrupt
        InterruptedException interrupted = new InterruptedException("interrupted while waiting for lock '" + key + "'");
        interrupted.initCause(cause);
        return interrupted;
    }

    @Override
    public String toString() {
        return "FencepostLock[key=" + key + ", locked=" + local.isLocked() + "]";
    }
}
