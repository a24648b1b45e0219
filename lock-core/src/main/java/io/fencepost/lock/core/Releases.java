package io.fencepost.lock.core;

import static java.util.stream.Collectors.joining;

import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.internal.LogSafe;
import io.fencepost.lock.spi.HandOver;
import io.fencepost.lock.spi.HandOverRequest;
import io.fencepost.lock.spi.LeaseHandOver;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.MultiKeyAcquire;
import io.fencepost.lock.spi.ReleaseRequest;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
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
        Ending ending = lastHold(lease);
        if (ending == null) {
            return false;
        }
        try {
            ending.end();
        } catch (RuntimeException e) {
            failed(List.of(ending), e, throwOnStoreFailure);
        } finally {
            ending.finish();
        }
        return ending.removed();
    }

    /**
     * Ends one hold on each lease of a set; the leases whose last hold that was, and that nobody of this manager waits
     * for, leave the store together ({@link MultiKeyAcquire#releaseAll}: one statement on PostgreSQL), the others one
     * by one as {@link #releaseHold} ends them. Every lease is released even when the store fails for some.
     *
     * @return true when every lease was removed live from the store (or handed on) by this call
     * @throws LockStoreException when the store failed and {@code throwOnStoreFailure}
     */
    boolean releaseAll(List<HeldLease> leases, MultiKeyAcquire ability, boolean throwOnStoreFailure) {
        List<Ending> endings = new ArrayList<>();
        boolean all = true;
        for (HeldLease lease : leases) {
            Ending ending = lastHold(lease);
            if (ending == null) {
                all = false;
            } else {
                endings.add(ending);
            }
        }
        List<Ending> together = new ArrayList<>();
        LockStoreException failure = null;
        try {
            for (Ending ending : endings) {
                if (ending.alone()) {
                    failure = collect(failure, ending, throwOnStoreFailure);
                } else {
                    together.add(ending);
                }
            }
            if (!together.isEmpty()) {
                try {
                    List<Boolean> removed = ability.releaseAll(
                            together.stream().map(Ending::request).toList());
                    for (int i = 0; i < together.size(); i++) {
                        together.get(i).storeRemoved(removed.get(i));
                    }
                } catch (RuntimeException e) {
                    try {
                        failed(together, e, throwOnStoreFailure);
                    } catch (LockStoreException thrown) {
                        failure = add(failure, thrown);
                    }
                }
            }
        } finally {
            endings.forEach(Ending::finish);
        }
        if (failure != null) {
            throw failure;
        }
        for (Ending ending : endings) {
            all &= ending.removed();
        }
        return all;
    }

    /** Ends {@code ending} on its own, keeping the first store failure and adding later ones to it. */
    private LockStoreException collect(LockStoreException failure, Ending ending, boolean throwOnStoreFailure) {
        try {
            ending.end();
        } catch (RuntimeException e) {
            try {
                failed(List.of(ending), e, throwOnStoreFailure);
            } catch (LockStoreException thrown) {
                return add(failure, thrown);
            }
        }
        return failure;
    }

    private static LockStoreException add(LockStoreException failure, LockStoreException more) {
        if (failure == null) {
            return more;
        }
        failure.addSuppressed(more);
        return failure;
    }

    /** The release of {@code lease} when this was its last hold; null when other holds remain. */
    private Ending lastHold(HeldLease lease) {
        if (!lease.dropHold()) {
            return null;
        }
        boolean wasHeld = lease.markReleased();
        workers.forEach(worker -> worker.unregister(lease));
        return new Ending(lease, wasHeld);
    }

    /** A store failure while ending {@code endings}: thrown as a lock-store failure, or logged once per lease. */
    private static void failed(List<Ending> endings, RuntimeException e, boolean throwOnStoreFailure) {
        if (throwOnStoreFailure) {
            String keys =
                    endings.stream().map(ending -> "'" + ending.lease.key + "'").collect(joining(", "));
            throw e instanceof LockStoreException
                    ? e
                    : new LockStoreException("could not release lock " + keys + ": the lock store failed: " + e, e);
        }
        for (Ending ending : endings) {
            LOG.log(
                    Level.WARNING,
                    "could not release lock ''{0}'' (fencing token {1}); it expires at {2}: {3}",
                    LogSafe.text(ending.lease.key),
                    Long.toString(ending.lease.fencingToken),
                    ending.lease.expiresAt(),
                    LogSafe.text(e.toString()));
        }
    }

    /** The release of one lease whose last hold was dropped: decided at once, ended in the store, then finished. */
    private final class Ending {

        private final HeldLease lease;

        private final boolean wasHeld;

        private final Duration heldFor;

        private final Duration minHoldLeft;

        /** The line of a waiter of this manager the lease goes to; null when it goes to nobody here. */
        private final WaiterLine line;

        private final WaiterLine.Waiter next;

        /** Whether the store removed (or handed on) our row. */
        private boolean removed;

        /** Whether that row was a live lease of ours: what the release returns. */
        private boolean removedLive;

        Ending(HeldLease lease, boolean wasHeld) {
            this.lease = lease;
            this.wasHeld = wasHeld;
            long now = System.nanoTime();
            this.heldFor = Duration.ofNanos(now - lease.grantSentNanos);
            this.minHoldLeft = lease.minHoldToKeep(now);
            boolean mayHandOver = handOver != null
                    && wasHeld
                    && minHoldLeft.isZero()
                    && !lease.options.fair()
                    && lease.mode() == LeaseMode.EXCLUSIVE;
            this.line = mayHandOver ? lines.inUse(lease.key) : null;
            this.next = line != null ? line.claim() : null;
        }

        /**
         * Whether this release cannot join others in one store step: it hands the lease to a waiter here, keeps a
         * minimum hold, or leaves a place in the store's queue with the release.
         */
        boolean alone() {
            return next != null
                    || !minHoldLeft.isZero()
                    || lease.mode() != LeaseMode.EXCLUSIVE
                    || places.owns(lease.key, lease.ownerToken());
        }

        ReleaseRequest request() {
            // Even a lease we declared lost may still be ours in the store; removing it frees the key sooner.
            return new ReleaseRequest(lease.key, lease.ownerToken(), minHoldLeft, lease.mode());
        }

        /** Ends the lease in the store: hands it to the waiter here, or releases it (leaving its queue place). */
        void end() {
            if (next != null) {
                Optional<HandOver> handed = Optional.empty();
                try {
                    handed = handOver.handOver(
                            new HandOverRequest(lease.ownerToken(), next.call.request(next.ownerToken, holderName)));
                    if (handed.isPresent()) {
                        // Before the waiter learns of its lease: it may release it at once, and the place must be
                        // its own by then, or that release would not leave it and the place would outlive the lease.
                        places.pass(lease.key, lease.ownerToken(), next.ownerToken);
                    }
                } finally {
                    // Waiters in the store's queue are invisible to the store's answer, so a place in it counts as
                    // others waiting: the key then leaves this manager now and then for them.
                    line.complete(next, handed, places.holds(lease.key));
                }
                removed = handed.isPresent();
                removedLive = removed;
                return;
            }
            ReleaseRequest request = request();
            // A place in the store's queue is left with the release, which wakes the next waiter there.
            storeRemoved(places.releaseAndLeave(request).orElseGet(() -> store.release(request)));
        }

        /** The store's answer to a release: whether it removed our lease. */
        void storeRemoved(boolean storeRemoved) {
            removed = storeRemoved;
            removedLive = storeRemoved && (wasHeld || lease.state() == HeldLease.State.LOST);
        }

        boolean removed() {
            return removedLive;
        }

        /** After the store answered, or failed. */
        void finish() {
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
