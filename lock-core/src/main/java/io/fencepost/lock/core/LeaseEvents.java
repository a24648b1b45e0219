package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.internal.LogSafe;
import io.fencepost.lock.spi.LockListener;
import java.lang.System.Logger.Level;
import java.time.Duration;

/**
 * Tells the listener what happens to leases, and carries out a loss: the lease stops being held, every party that
 * watches it learns so, and local waiters are woken. Listener calls come on the thread doing the work.
 */
final class LeaseEvents {

    private static final System.Logger LOG = System.getLogger(LeaseEvents.class.getName());

    private final LockListener listener;

    private final HeldLeases held;

    private final WaiterLines lines;

    LeaseEvents(LockListener listener, HeldLeases held, WaiterLines lines) {
        this.listener = listener;
        this.held = held;
        this.lines = lines;
    }

    void acquired(AcquireCall call, Lease lease) {
        listener.acquired(call.options().name(), lease, call.waited());
    }

    void notAcquired(AcquireCall call) {
        listener.notAcquired(
                call.options().name(), call.key(), call.waited(), call.options().skipsWhenBusy());
    }

    void acquireFailed(AcquireCall call, RuntimeException failure) {
        listener.acquireFailed(call.options().name(), call.key(), call.waited(), failure);
    }

    void released(HeldLease lease, boolean removed, Duration heldFor) {
        listener.released(lease.options.name(), LeaseHold.view(lease), removed, heldFor);
    }

    void renewed(HeldLease lease) {
        listener.renewed(lease.options.name(), LeaseHold.view(lease));
    }

    void renewalFailed(HeldLease lease, RuntimeException failure) {
        listener.renewalFailed(lease.options.name(), LeaseHold.view(lease), failure);
    }

    /** The lease is lost (once: later calls for it do nothing). */
    void lost(HeldLease lease, String reason) {
        if (lease.markLost(reason)) {
            held.remove(lease);
            LOG.log(
                    Level.WARNING,
                    "lost lock ''{0}'' (fencing token {1}): {2}",
                    LogSafe.text(lease.key),
                    Long.toString(lease.fencingToken),
                    LogSafe.text(reason));
            listener.lost(lease.options.name(), LeaseHold.view(lease), reason);
            lease.fireLost();
            wakeWaiters(lease.key);
        }
    }

    /**
     * Local waiters for {@code key} look again: it may be free. (Fair waiters hear the store: a release either hands
     * the key to the oldest registration or wakes the key's subscribers.)
     */
    void wakeWaiters(String key) {
        lines.wake(key);
    }
}
