package io.fencepost.lock.spi;

import io.fencepost.lock.Lease;
import java.time.Duration;

/**
 * Observes what the lock engine does, for metrics, tracing and logs. Every method has a no-op default; calls
 * come on the thread doing the work (renewal and loss on the renewal thread) and must not block.
 *
 * <p>{@code name} is the low-cardinality {@link io.fencepost.lock.LockOptions#name()}, never the key.
 */
public interface LockListener {

    /** A listener that does nothing. */
    LockListener NONE = new LockListener() {};

    /** A lease was granted after waiting {@code waited} (a reentrant hold is not reported). */
    default void acquired(String name, Lease lease, Duration waited) {}

    /**
     * The key stayed busy for the whole wait.
     *
     * @param skipped whether the caller skips its work rather than failing
     *     ({@link io.fencepost.lock.LockOptions#skipsWhenBusy()}, as {@code @DistributedLock(onLocked = SKIP)} sets)
     */
    default void notAcquired(String name, String key, Duration waited, boolean skipped) {}

    /** Acquisition failed because the store failed. */
    default void acquireFailed(String name, String key, Duration waited, RuntimeException failure) {}

    /** The lease was released; {@code removed} is false when it was already gone from the store. */
    default void released(String name, Lease lease, boolean removed, Duration held) {}

    /** A renewal confirmed the lease. */
    default void renewed(String name, Lease lease) {}

    /** A renewal attempt failed because the store failed (the lease may still be held). */
    default void renewalFailed(String name, Lease lease, RuntimeException failure) {}

    /** The lease was lost: taken over, expired, or not confirmed before its safe deadline. */
    default void lost(String name, Lease lease, String reason) {}

    /**
     * The store's sweeper removed {@code removed} rows of one {@code kind} that nothing needed any more:
     * {@link StoreSweeper#LEASES}, {@link StoreSweeper#REGISTRATIONS} or {@link StoreSweeper#FENCES}; called on the
     * sweeper's own thread.
     */
    default void swept(String kind, int removed) {}
}
