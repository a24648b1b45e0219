package io.fencepost.lock.spi;

import io.fencepost.lock.LeaseInfo;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * Where leases live: the narrow contract a store implements, one atomic decision per call. Expiry is always decided
 * by the store's own clock; durations passed in are measured by it.
 *
 * <p>"Not acquired" and "not ours" are values, not exceptions. Every method throws
 * {@link io.fencepost.lock.LockStoreException} when the store is unreachable or fails, and must then have granted
 * nothing.
 *
 * <p>Abilities beyond these are separate interfaces that a store may also implement, and that the engine finds once
 * when it is built: {@link LeaseHandOver} (a release hands the lease to a waiter of the same client) and
 * {@link WaiterRelay} (a release hands the lease to the oldest registered waiter of any client; fair mode, which
 * serves waiters in arrival order, needs it) and {@link MultiKeyAcquire} (several keys in one atomic step, which sets
 * of keys need). The contract suite in {@code lock-test-support} checks every
 * store against this contract.
 */
public interface LeaseStore {

    /**
     * One attempt to take the key: an exclusive request succeeds when the key is free or its leases have expired by the
     * store's clock; a shared one also while only shared leases are live and no exclusive request waits; one of n
     * permits also while fewer than n permits are live. A success draws a fresh fencing token, strictly greater than
     * that of every grant of the key made before it.
     *
     * @throws IllegalStateException when the request's number of permits differs from that of the key's live leases
     */
    AcquireResult acquire(AcquireRequest request);

    /**
     * Extends every lease in {@code requests} that is still owned (matching owner token) and unexpired, to now plus
     * its requested lease time, but never to before its acquisition plus the request's minimum hold. One store
     * operation for the whole batch (a store may split it by kind of lease).
     *
     * @return the new expiry of each renewed lease, exactly as the store set it: the engine reads the store's now
     *     from it (expiry minus lease time) when an extension asks for a minimum hold of its own; a request missing
     *     from the result was not renewed (lost)
     */
    Map<RenewRequest, Instant> renew(Collection<RenewRequest> requests);

    /**
     * Ends the lease on the key if the request's owner token still owns it; with a minimum hold time, a live lease
     * is instead set to end at acquisition plus that time (or now, if that passed), even past its current expiry,
     * and can no longer be renewed.
     *
     * @return true when our unexpired lease was removed or shortened; false when it was not ours any more
     */
    boolean release(ReleaseRequest request);

    /**
     * Removes any lease on {@code key}, whoever owns it: an operator's forced release.
     *
     * @return true when a live lease was removed
     */
    boolean forceRelease(String key);

    /** The live lease on {@code key}, if any. Never exposes the owner token. */
    Optional<LeaseInfo> inspect(String key);

    /**
     * Push wake-ups: asks the store to call {@code wakeUp} when {@code key} may have become free, so that waiters
     * need not poll. A store without push returns {@link Subscription#NONE}; waiters then back off and re-check at
     * the holder's known expiry.
     */
    Subscription subscribe(String key, Runnable wakeUp);

    /** A push subscription; closing it stops the calls. */
    @FunctionalInterface
    interface Subscription extends AutoCloseable {

        /** A subscription that delivers nothing. */
        Subscription NONE = () -> {};

        /**
         * Whether wake-ups are being delivered right now. While false (no push, or its connection is down), waiters
         * poll with backoff; while true they rely on the push and re-check only rarely.
         */
        default boolean delivers() {
            return false;
        }

        @Override
        void close();
    }
}
