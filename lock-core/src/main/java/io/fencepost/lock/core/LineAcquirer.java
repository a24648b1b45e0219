package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LeaseStore;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Acquisition in the ordinary (not fair) mode: the callers of this manager line up per key in a {@link WaiterLine}
 * and only the head of the line talks to the store; a local holder's release may hand the lease straight to the
 * waiter at the head.
 */
final class LineAcquirer {

    /** How long a waiter pauses, at most, while a holder of this manager releases the key (its end wakes us). */
    private static final long RELEASE_IN_FLIGHT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final LeaseStore store;

    private final String holderName;

    private final WaiterLines lines;

    private final HeldLeases held;

    private final Releases releases;

    private final Grants grants;

    private final AcquireLoop loop;

    private final RegisteredWaits registrations;

    private final QueuePlaces places;

    LineAcquirer(
            LeaseStore store,
            String holderName,
            WaiterLines lines,
            HeldLeases held,
            Releases releases,
            Grants grants,
            AcquireLoop loop,
            RegisteredWaits registrations,
            QueuePlaces places) {
        this.store = store;
        this.holderName = holderName;
        this.lines = lines;
        this.held = held;
        this.releases = releases;
        this.grants = grants;
        this.loop = loop;
        this.registrations = registrations;
        this.places = places;
    }

    Optional<Lease> acquire(AcquireCall call) {
        String key = call.key();
        WaiterLine line = lines.enter(key);
        // A waiter for an exclusive lease may receive a local holder's exclusive lease directly on its release (one
        // statement, not two); shared leases and permits are never handed over.
        boolean takesHandOver =
                call.waits() && releases.handsOver() && call.options().mode() == LeaseMode.EXCLUSIVE;
        WaiterLine.Waiter me = line.join(takesHandOver ? call : null);
        Optional<Lease> lease = Optional.empty();
        try {
            if (!line.awaitTurn(me, call.remainingNanos())) {
                // The wait ran out in line; a lease may still have been handed to us just now.
                lease = handedOver(call, line, me);
                return lease.isPresent() ? lease : loop.notAcquired(call);
            }
            // Our turn, or a lease handed to us while in line: the loop takes that first.
            lease = attemptUntilDeadline(call, line, me);
            return lease;
        } catch (InterruptedException e) {
            return loop.interrupted(call);
        } finally {
            // Handed to us as we gave up (interrupted, or failed): nobody will use it, so free the key at once. Not
            // when we hold a lease: a registered waiter's attempts carry the token a local hand-over gives it, so a
            // hand-over that completed while our attempt was on its way is the very grant that attempt returned.
            if (line.leave(me).isPresent() && lease.isEmpty()) {
                releases.releaseUnclaimed(key, me.ownerToken);
            }
            lines.leave(key);
        }
    }

    private Optional<Lease> attemptUntilDeadline(AcquireCall call, WaiterLine line, WaiterLine.Waiter me)
            throws InterruptedException {
        boolean waits = call.waits();
        // Subscribe before the first attempt: a release that happens after our attempt then always wakes us.
        LeaseStore.Subscription subscription =
                waits ? store.subscribe(call.key(), line::wake) : LeaseStore.Subscription.NONE;
        // A waiter for an exclusive lease registers with a store that relays releases to registered waiters, under
        // the owner token a local hand-over would give it too.
        RegisteredWait registered =
                registrations.available() && waits && call.options().mode() == LeaseMode.EXCLUSIVE
                        ? registrations.open(call, line.ownerToken(me), false, line::wake)
                        : null;
        // A registered waiter also waits in the store's own queue, where there is one: the release before its turn
        // then wakes it in the store. Its place belongs to the owner token its grant will have, so the lease keeps it.
        QueuedWait queued = registered != null
                ? places.waitFor(call.key(), registered.ownerToken(), registrations.busyKeys())
                : null;
        Optional<Lease> lease = Optional.empty();
        try {
            lease = loop.run(call, new AcquireLoop.Attempts() {

                @Override
                public Optional<Lease> handedOver() {
                    Optional<Lease> local = LineAcquirer.this.handedOver(call, line, me);
                    if (registered == null) {
                        return local;
                    }
                    if (local.isPresent()) {
                        registered.settledLocally();
                        return local;
                    }
                    return registered.handedOver();
                }

                @Override
                public long knownBusyNanos() {
                    // Held exclusively by another thread of this manager, or being released by it: the end of that
                    // release, or a loss, wakes us; asking the store meanwhile could only find the key busy. Behind
                    // shared leases or permits the store decides (whether one more permit is free), and a waiting
                    // writer must keep telling it that it waits, so that new readers everywhere queue behind it.
                    for (HeldLease local : held.on(call.key())) {
                        if (!excludes(local.mode(), call.options().mode())) {
                            continue;
                        }
                        if (local.isHeld() && local.mode() == LeaseMode.EXCLUSIVE) {
                            return local.safeDeadlineNanos() - System.nanoTime();
                        }
                        if (local.state() == HeldLease.State.RELEASED) {
                            return RELEASE_IN_FLIGHT_NANOS;
                        }
                    }
                    // Just freed for waiters in other processes: give them the first try. Not for a registered
                    // waiter: that release handed the key to the oldest registration if there was one, so holding
                    // back could only leave a key free that no registration was there to take.
                    long courtesy = waits && registered == null ? line.courtesyLeftNanos() : 0;
                    return courtesy > 0 ? courtesy : AcquireLoop.CALL_STORE;
                }

                @Override
                public String ownerToken() {
                    return registered != null ? registered.ownerToken() : AcquireLoop.Attempts.super.ownerToken();
                }

                @Override
                public AcquireResult attempt(String ownerToken) {
                    if (queued != null && queued.outside()) {
                        queued.joinBeforeFirstAttempt(call.remainingNanos());
                        if (queued.outside()) {
                            AcquireResult look = store.acquire(call.request(ownerToken, holderName));
                            if (look instanceof AcquireResult.Busy) {
                                queued.foundBusy();
                            }
                            return look;
                        }
                    }
                    if (queued != null && queued.firstAtHead()) {
                        AcquireResult look = store.acquire(call.request(ownerToken, holderName));
                        if (look instanceof AcquireResult.Granted) {
                            return look;
                        }
                    }
                    return registered != null
                            ? registered.attempt(holderName)
                            : store.acquire(call.request(ownerToken, holderName));
                }

                @Override
                public long grantedNoEarlierThan(long sentNanos) {
                    return registered != null ? registered.grantedNoEarlierThan(sentNanos) : sentNanos;
                }

                @Override
                public boolean promisesWakeUp() {
                    return subscription.delivers() && (registered == null || registered.delivers());
                }

                @Override
                public void pause(long nanos) throws InterruptedException {
                    long left = nanos;
                    if (queued != null && queued.outside()) {
                        long start = System.nanoTime();
                        if (queued.enter(nanos)) {
                            return; // at the head of the queue: the release before us is done, ask the store
                        }
                        left -= System.nanoTime() - start;
                    }
                    if (left > 0) {
                        line.awaitWakeUp(registered == null ? left : Math.min(left, registered.refreshNanos()));
                    }
                }
            });
            return lease;
        } finally {
            if (queued != null) {
                queued.end(lease.isPresent());
            }
            subscription.close();
            if (registered != null) {
                registered.end();
            }
        }
    }

    /** Whether a held lease of kind {@code held} keeps a request of kind {@code requested} out. */
    private static boolean excludes(LeaseMode held, LeaseMode requested) {
        return held == LeaseMode.EXCLUSIVE
                || requested == LeaseMode.EXCLUSIVE
                || (held != requested); // shared and permits never mix
    }

    /** The lease a local holder handed to this waiter on release, if it did; it is then the caller's. */
    private Optional<Lease> handedOver(AcquireCall call, WaiterLine line, WaiterLine.Waiter me) {
        return line.take(me).map(handed -> grants.granted(call, me.ownerToken, handed.granted(), me.sentNanos));
    }
}
