package io.fencepost.lock.spi;

import java.time.Duration;

/**
 * An optional ability of a {@link LeaseStore}: it removes what ended leases and lapsed waiter registrations leave
 * behind, in bounded batches, so that keys used once (built from request data, say) do not accumulate. The engine
 * that finds it (on the store, or handed to it by a store's own manager) calls {@link #sweep} on a background thread
 * of its own.
 *
 * <p>A sweep must never remove what a later grant still needs: a live lease, a lease that a minimum hold still keeps,
 * a live registration, or a row that a grant is changing while the sweep runs.
 */
public interface StoreSweeper {

    /** The kind of row {@link LockListener#swept} reports for leases that ended. */
    String LEASES = "lease";

    /** The kind of row {@link LockListener#swept} reports for registrations of waiters that lapsed. */
    String REGISTRATIONS = "registration";

    /** The kind of row {@link LockListener#swept} reports for a fencing guard's records of accepted tokens. */
    String FENCES = "fence";

    /** How long the engine pauses after a sweep that found no full batch of anything. */
    Duration sweepInterval();

    /**
     * Removes at most one batch of each kind of row that nothing needs any more, telling {@code listener} of each
     * kind it removed rows of ({@link LockListener#swept}).
     *
     * @return whether a batch came back full, so that more may be left and the engine sweeps again at once
     * @throws io.fencepost.lock.LockStoreException when the store fails; the engine tries again after the interval
     */
    boolean sweep(LockListener listener);
}
