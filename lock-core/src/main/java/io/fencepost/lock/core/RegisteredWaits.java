package io.fencepost.lock.core;

import io.fencepost.lock.internal.RecentKeys;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.WaiterRelay;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Opens waits registered with the store's {@link WaiterRelay}, when the store has one: the acquirers of both modes
 * register their waiting callers through it, and fair mode needs it.
 *
 * @param relay null when the store does not relay releases to registered waiters
 * @param ttl how long a registration lives unless its waiter refreshes it
 * @param busyKeys keys that a registered wait of this manager recently found busy: a new wait for one registers with
 *     its first attempt instead of first trying a plain one, which would most likely find the key busy too
 */
record RegisteredWaits(
        LeaseStore store, WaiterRelay relay, Grants grants, Releases releases, Duration ttl, RecentKeys busyKeys) {

    /**
     * A registration outlives several re-checks of its waiter (at least every {@code pushFallback}), which refresh it;
     * a dead waiter's then lapses.
     */
    static RegisteredWaits of(
            LeaseStore store, WaiterRelay relay, Grants grants, Releases releases, Duration pushFallback) {
        return new RegisteredWaits(
                store,
                relay,
                grants,
                releases,
                Duration.ofNanos(Math.max(TimeUnit.SECONDS.toNanos(10), 5 * pushFallback.toNanos())),
                RecentKeys.ofLastSecond());
    }

    /** Whether the store relays releases to registered waiters. */
    boolean available() {
        return relay != null;
    }

    /**
     * Registers {@code call}'s wait under {@code ownerToken}, in turn (fair mode) or not; {@code wakeUp} is called when
     * a release hands it the lease.
     */
    RegisteredWait open(AcquireCall call, String ownerToken, boolean inTurn, Runnable wakeUp) {
        return new RegisteredWait(store, relay, grants, releases, busyKeys, call, ownerToken, ttl, inTurn, wakeUp);
    }
}
