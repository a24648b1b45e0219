package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.spi.AcquireResult;
import java.util.List;

/**
 * Turns a grant of the store into a lease this manager holds: registered for reentrancy, renewal and the loss
 * watchdog, reported to the listener, and handed to the caller as its first hold.
 */
final class Grants {

    private final HeldLeases held;

    /** Renewal and the loss watchdog. */
    private final List<LeaseWorker> workers;

    private final Releases releases;

    private final Renewer renewer;

    private final LeaseEvents events;

    Grants(HeldLeases held, List<LeaseWorker> workers, Releases releases, Renewer renewer, LeaseEvents events) {
        this.held = held;
        this.workers = workers;
        this.releases = releases;
        this.renewer = renewer;
        this.events = events;
    }

    /**
     * The lease granted to {@code call} with {@code ownerToken}, by a store request sent at {@code sentNanos}.
     */
    LeaseHold granted(AcquireCall call, String ownerToken, AcquireResult.Granted granted, long sentNanos) {
        HeldLease lease = new HeldLease(
                call.key(),
                ownerToken,
                granted.fencingToken(),
                call.options(),
                granted.acquiredAt(),
                granted.expiresAt(),
                sentNanos);
        held.add(lease);
        workers.forEach(worker -> worker.register(lease));
        LeaseHold hold = new LeaseHold(lease, releases, renewer);
        events.acquired(call, hold);
        return hold;
    }

    /** One more hold on a lease the calling thread holds already (no store call, not reported). */
    Lease reentered(HeldLease lease) {
        return new LeaseHold(lease, releases, renewer);
    }
}
