package io.fencepost.lock.core;

/**
 * Declares a lease lost the moment its local safe deadline passes unconfirmed. It does no I/O, so it works even while
 * the renewal thread is stuck in a store call that cannot reach the database.
 */
final class LossWatchdog extends LeaseWorker {

    LossWatchdog(LeaseEvents events) {
        super("fencepost-watchdog", HeldLease::safeDeadlineNanos, events);
    }

    /** Declares lost what ran past its safe deadline; returns when to look again. */
    @Override
    long work() {
        long now = System.nanoTime();
        long nextWake = now + IDLE_NANOS;
        for (HeldLease lease : leases) {
            if (lease.state() != HeldLease.State.HELD) {
                leases.remove(lease);
            } else if (now - lease.safeDeadlineNanos() >= 0) {
                leases.remove(lease);
                events.lost(lease, lease.whyExpired());
            } else {
                nextWake = Math.min(nextWake, lease.safeDeadlineNanos());
            }
        }
        return nextWake;
    }
}
