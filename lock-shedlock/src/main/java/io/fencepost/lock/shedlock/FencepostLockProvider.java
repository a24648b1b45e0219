package io.fencepost.lock.shedlock;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * ShedLock's lock provider over a Fencepost {@link LockManager}: replace the {@code LockProvider} bean with this one
 * and {@code @SchedulerLock} tasks run under Fencepost leases.
 *
 * <ul>
 *   <li>{@code lockAtMostFor} is the lease time, and the lease is not renewed: as with every ShedLock provider, the
 *       lock ends then even if the task still runs.
 *   <li>{@code lockAtLeastFor} is the lease's minimum hold time: the store keeps the key locked until then after an
 *       early unlock, also when this process dies.
 *   <li>Holds are not reentrant: while a task holds a lock, asking for the same name again, even on the same thread, is
 *       "busy", as ShedLock requires.
 *   <li>{@link SimpleLock#extend} moves the end of the lease in one owner-checked store call ({@link
 *       Lease#extend(java.time.Duration, java.time.Duration)}), and the store keeps the key locked until the
 *       extension's {@code lockAtLeastFor} has passed; the new lock replaces the old one, which can then be neither
 *       unlocked nor extended.
 *   <li>A busy lock is a skipped run, as ShedLock skips the task: the lock manager's listeners report it as
 *       skipped ({@link LockOptions#skipsWhenBusy()}; {@code result=skipped} in the metrics), not as not acquired.
 * </ul>
 *
 * <p>The running task reads its lease, and with it the fencing token, from {@link #currentLease()}.
 */
public final class FencepostLockProvider implements ExtensibleLockProvider {

    private final LockManager locks;

    /** A provider whose locks are leases of {@code locks}; the lock's name is the key. */
    public FencepostLockProvider(LockManager locks) {
        this.locks = Objects.requireNonNull(locks, "locks");
    }

    /**
     * The lease of the innermost ShedLock lock this thread took through a {@code FencepostLockProvider} and has not
     * unlocked: inside a {@code @SchedulerLock} task, the task's own lease. Hand {@link Lease#fencingToken()} to the
     * resource the task writes to, and call {@link Lease#checkHeld()} before a side effect.
     */
    public static Optional<Lease> currentLease() {
        return CurrentLeases.innermost();
    }

    /** The lease of the lock named {@code name} that this thread took through a provider and has not unlocked. */
    public static Optional<Lease> currentLease(String name) {
        return CurrentLeases.named(name);
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Objects.requireNonNull(configuration, "configuration");
        LockOptions options = LockOptions.builder()
                .leaseTime(configuration.getLockAtMostFor())
                .minHoldTime(configuration.getLockAtLeastFor())
                .renew(false)
                .reentrant(false)
                .skipsWhenBusy(true)
                // Lock names are the scheduled tasks' names: few, and readable in metrics.
                .name(configuration.getName())
                .build();
        return locks.tryAcquire(configuration.getName(), options).map(FencepostSimpleLock::taken);
    }

    @Override
    public String toString() {
        return "FencepostLockProvider[" + locks + "]";
    }
}
