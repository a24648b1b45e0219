package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.LeaseMode;
import java.time.Instant;
import java.util.Objects;

/**
 * What a store knows one grant by, for a store's own helpers that check a lease where the engine is not involved:
 * inside a caller's database transaction, for example. It carries the grant's owner token, a secret: never log it
 * or show it; {@link #toString()} leaves it out.
 *
 * @param key the locked key
 * @param ownerToken the grant's secret owner token
 * @param fencingToken the grant's fencing token
 * @param mode the kind of lease
 * @param expiresAt the end of the lease as the store last confirmed it (store clock)
 */
public record LeaseGrant(String key, String ownerToken, long fencingToken, LeaseMode mode, Instant expiresAt) {

    /**
     * The grant behind {@code lease}, a lease that a lock manager built on this engine handed out (any of its
     * reentrant holds, or a listener's view of it).
     *
     * @throws IllegalArgumentException when {@code lease} is null or was not handed out by such a manager
     * @throws IllegalStateException when this hold of the lease was released
     * @throws LeaseLostException when the lease is known to be lost (its owner could not be confirmed in time, it was
     *     taken over or force-released)
     */
    public static LeaseGrant of(Lease lease) {
        if (lease == null) {
            throw new IllegalArgumentException("lease must not be null: pass the lease the lock manager granted");
        }
        if (!(lease instanceof LeaseHold hold)) {
            throw new IllegalArgumentException(
                    "lease " + lease + " (" + lease.getClass().getName()
                            + ") was not granted by a fencepost lock manager: pass the lease that LockManager.acquire,"
                            + " tryAcquire or withLock returned, or LockContext.current()");
        }
        return hold.grant();
    }

    public LeaseGrant {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(ownerToken, "ownerToken");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }

    @Override
    public String toString() {
        // No owner token here: it is a secret.
        return "LeaseGrant[key=" + key + ", fencingToken=" + fencingToken + ", mode=" + mode + "]";
    }
}
