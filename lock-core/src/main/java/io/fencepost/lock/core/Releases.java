package io.fencepost.lock.core;

import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.internal.LogSafe;
import io.fencepost.lock.spi.HandOver;
import io.fencepost.lock.spi.HandOverRequest;
import io.fencepost.lock.spi.LeaseHandOver;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.ReleaseRequest;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Ends holds. The last hold on a lease releases it in the store, or, when a thread of this manager waits for the key
 * and the store can hand leases over, gives the lease straight to that waiter in one statement.
 */
final class Releases {

    private static final System.Logger LOG = System.getLogger(Releases.class.getName());

    private final LeaseStore store;

    /** Null when the store cannot hand leases over: a release then frees the key and the waiter acquires. */
    private final LeaseHandOver handOver;

    private final String holderName;

    private final HeldLeases held;

    private final WaiterLines lines;

    /** Renewal and the loss watchdog. */
    private final List<LeaseWorker> workers;

    private final LeaseEvents events;

    private final QueuePlaces places;

    Releases(
            LeaseStore store,
            LeaseHandOver handOver,
            String holderName,
            HeldLeases held,
            WaiterLines lines,
            List<LeaseWorker> workers,
            LeaseEvents events,
            QueuePlaces places) {
        this.store = store;
        this.handOver = handOver;
        this.holderName = holderName;
        this.held = held;
        this.lines = lines;
        this.workers = workers;
        this.events = events;
        this.places = places;
    }

    /** Whether a release can hand the lease to a waiter of this manager. */
    boolean handsOver() {
        return handOver != null;
    }

    /**
     * Ends one hold on {@code lease}; the last one ends the lease.
     *
     * @return true when this call removed our live lease from the store (or handed it on)
     * @throws LockStoreException when the store failed and {@code throwOnStoreFailure}
     */
    boolean releaseHold(HeldLease lease, boolean throwOnStoreFailure) {
        if (!lease.dropHold()) {
            return false;
        }
        boolean wasHeld = lease.markReleased();
        workers.forEach(worker -> worker.unregister(lease));
        Duration heldFor = Duration.ofNanos(System.nanoTime() - lease.grantSentNanos);
        Duration minHoldLeft = lease.minHoldToKeep(System.nanoTime());
        boolean mayHandOver = handOver != null
                && wasHeld
                && minHoldLeft.isZero()
                && !lease.options.fair()
                && lease.mode() == LeaseMode.EXCLUSIVE;
        WaiterLine line = mayHandOver ? lines.inUse(lease.key) : null;
        WaiterLine.Waiter next = line != null ? line.claim() : null;
        boolean removed = false;
        try {
            if (next != null) {
                Optional<HandOver> handed = Optional.empty();
                try {
                    handed = handOver.handOver(
                            new HandOverRequest(lease.ownerToken(), next.call.request(next.ownerToken, holderName)));
                } finally {
                    // Waiters in the store's queue are invisible to the store's answer, so a place in it counts as
                    // others waiting: the key then leaves this manager now and then for them.
                    line.complete(next, handed, places.holds(lease.key));
                }
                removed = handed.isPresent();
                if (removed) {
                    places.pass(lease.key, lease.ownerToken(), next.ownerToken);
                }
                return removed;
            }
            // Even a lease we declared lost may still be ours in the store; removing it frees the key sooner.
            ReleaseRequest request = new ReleaseRequest(lease.key, lease.ownerToken(), minHoldLeft, lease.mode());
            // A place in the store's queue is left with the release, which wakes the next waiter there.
            removed = places.releaseAndLeave(request).orElseGet(() -> store.release(request));
            return removed && (wasHeld || lease.state() == HeldLease.State.LOST);
        } catch (RuntimeException e) {
            if (throwOnStoreFailure) {
                throw e instanceof LockStoreException
                        ? e
                        : new LockStoreException(
                                "could not release lock '" + lease.key + "': the lock store failed: " + e, e);
            }
            LOG.log(
                    Level.WARNING,
                    "could not release lock ''{0}'' (fencing token {1}); it expires at {2}: {3}",
                    LogSafe.text(lease.key),
                    Long.toString(lease.fencingToken),
                    lease.expiresAt(),
                    LogSafe.text(e.toString()));
            return false;
        } finally {
            if (!removed || next == null) {
                // Wakes the next waiter in the store's queue, after the release: it finds the key free.
                places.leave(lease.key, lease.ownerToken());
            }
            // Only now: until the store has answered, local waiters know the key is busy without asking it.
            held.remove(lease);
            events.released(lease, removed, heldFor);
            events.wakeWaiters(lease.key);
        }
    }

    /** Frees a key handed to a waiter that gave up before taking it: nobody will use that lease. */
    void releaseUnclaimed(String key, String ownerToken) {
        try {
            store.release(ReleaseRequest.now(key, ownerToken));
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "could not release lock ''{0}'' handed to a waiter that gave up: {1}",
                    LogSafe.text(key),
                    LogSafe.text(e.toString()));
        } finally {
            places.leave(key, ownerToken);
        }
    }
}
