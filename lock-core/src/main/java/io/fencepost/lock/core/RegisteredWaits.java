package io.fencepost.lock.core;

import io.fencepost.lock.spi.WaiterRelay;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Opens waits registered with the store's {@link WaiterRelay}, when the store has one: the acquirers of both modes
 * register their waiting callers through it.
 */
final class RegisteredWaits {

    /** Null when the store does not relay releases to registered waiters. */
    private final WaiterRelay relay;

    private final Grants grants;

    private final Releases releases;

    /** A registration outlives several re-checks of its waiter, which refresh it; a dead waiter's then lapses. */
    private final Duration ttl;

    RegisteredWaits(WaiterRelay relay, Grants grants, Releases releases, Duration pushFallback) {
        this.relay = relay;
        this.grants = grants;
        this.releases = releases;
        this.ttl = Duration.ofNanos(Math.max(TimeUnit.SECONDS.toNanos(10), 5 * pushFallback.toNanos()));
    }

    /** Whether the store relays releases to registered waiters. */
    boolean available() {
        return relay != null;
    }

    /** How long a registration, or a fair ticket, lives unless its waiter refreshes it. */
    Duration ttl() {
        return ttl;
    }

    /**
     * Registers {@code call}'s wait under {@code ownerToken}, in turn (fair mode) or not; {@code wakeUp} is called when
     * a release hands it the lease.
     */
    RegisteredWait open(AcquireCall call, String ownerToken, boolean inTurn, Runnable wakeUp) {
        return new RegisteredWait(relay, grants, releases, call, ownerToken, ttl, inTurn, wakeUp);
    }
}
