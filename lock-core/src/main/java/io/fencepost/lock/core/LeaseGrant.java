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
     * Whose classes {@link #of} answers: Fencepost's own store modules, which bind a caller's transaction to a lease
     * (JdbcLeaseGuard). Application code has no use for a lease's owner token and must not be able to lift it from a
     * lease by accident; reflection can reach it anyway, as it can any secret in the same process.
     */
    private static final String FENCEPOST_PACKAGES = "io.fencepost.lock.";

    private static final StackWalker CALLERS = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    /**
     * The grant behind {@code lease}, a lease that a lock manager built on this engine handed out (any of its
     * reentrant holds, or a listener's view of it).
     *
     * <p>Only Fencepost's own classes may call this: the grant carries the owner token.
     *
     * @throws IllegalArgumentException when {@code lease} is null or was not handed out by such a manager
     * @throws IllegalCallerException when the caller is not one of Fencepost's classes
     * @throws IllegalStateException when this hold of the lease was released
     * @throws LeaseLostException when the lease is known to be lost (its owner could not be confirmed in time, it was
     *     taken over or force-released)
     */
    public static LeaseGrant of(Lease lease) {
        Class<?> caller = CALLERS.getCallerClass();
        if (!caller.getPackageName().startsWith(FENCEPOST_PACKAGES)) {
            throw new IllegalCallerException("LeaseGrant.of hands out a lease's secret owner token and answers only"
                    + " Fencepost's own modules, not " + caller.getName() + ": bind a transaction to a lease with"
                    + " JdbcLeaseGuard.holdUntilCommit, and use Lease.fencingToken() to fence a resource");
        }
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
