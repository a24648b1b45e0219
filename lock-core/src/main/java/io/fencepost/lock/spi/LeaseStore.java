package io.fencepost.lock.spi;

import io.fencepost.lock.LeaseInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * Where leases live: the narrow contract a store implements, one atomic decision per call. Expiry is always
 * decided by the store's own clock; durations passed in are measured by it.
 *
 * <p>"Not acquired" and "not ours" are values, not exceptions. Every method throws
 * {@link io.fencepost.lock.LockStoreException} when the store is unreachable or fails, and must then have
 * granted nothing.
 */
public interface LeaseStore {

    /**
     * One attempt to take {@code key}: succeeds when the key is free or its lease has expired by the store's
     * clock. A success draws a fresh fencing token, strictly greater than every token granted before.
     *
     * @param key the key, already validated
     * @param ownerToken the secret that later release and renewal must present
     * @param holder human-readable holder name, shown by {@link #inspect}
     * @param leaseTime how long the grant lasts from now (store clock)
     */
    AcquireResult tryAcquire(String key, String ownerToken, String holder, Duration leaseTime);

    /**
     * Like {@link #tryAcquire(String, String, String, Duration)}, from a caller that will wait if the key is
     * busy: a store with push wake-ups may then note on the lease that someone waits, so that only releases
     * somebody waits for pay for a notification. Stores without push ignore the flag.
     */
    default AcquireResult tryAcquire(
            String key, String ownerToken, String holder, Duration leaseTime, boolean waiting) {
        return tryAcquire(key, ownerToken, holder, leaseTime);
    }

    /** Whether this store can serve waiters in arrival order ({@link io.fencepost.lock.LockOptions#fair()}). */
    default boolean supportsFairness() {
        return false;
    }

    /**
     * Fair mode: takes a place in the key's queue for {@code waiterId} (one id per client), valid for
     * {@code ttl} unless refreshed by an attempt of the same waiter.
     *
     * @return the ticket; tickets are served in increasing order
     */
    default long enqueue(String key, String waiterId, Duration ttl) {
        throw new UnsupportedOperationException(getClass().getName() + " does not support fair locking");
    }

    /** Fair mode: gives up a place in the queue (the waiter stopped waiting). */
    default void dequeue(String key, long ticket) {
        throw new UnsupportedOperationException(getClass().getName() + " does not support fair locking");
    }

    /**
     * Fair mode: like {@link #tryAcquire(String, String, String, Duration, boolean)}, but grants only when no
     * live ticket lower than {@code ticket} waits for the key; a grant removes the ticket, a failure refreshes
     * every ticket of {@code waiterId} on the key for another {@code ttl}. {@link Long#MAX_VALUE} as the ticket
     * means "not queued": it succeeds only when nobody waits.
     */
    default AcquireResult tryAcquireFair(
            String key,
            String ownerToken,
            String holder,
            Duration leaseTime,
            String waiterId,
            long ticket,
            Duration ttl) {
        throw new UnsupportedOperationException(getClass().getName() + " does not support fair locking");
    }

    /**
     * Extends every lease in {@code requests} that is still owned (matching owner token) and unexpired, to
     * now plus its requested lease time. One store operation for the whole batch.
     *
     * @return the new expiry of each renewed key; a key missing from the result was not renewed (lost)
     */
    Map<String, Instant> renew(Collection<RenewRequest> requests);

    /** Whether {@link #handOver} is supported; the engine falls back to release and acquire when not. */
    default boolean supportsHandOver() {
        return false;
    }

    /**
     * Hands our live lease on {@code key} straight to a new grant of the same client (a thread that waits for
     * the key): in one durable step the lease gets {@code ownerToken}, {@code holder}, a new fencing token, and
     * a lease of {@code leaseTime} from now, as if released and acquired again with nobody in between. Whether
     * others wait for the key is kept, so their wake-up on the next release is not lost.
     *
     * @return the new grant; empty when {@code fromOwnerToken} no longer owns a live lease on the key (it was
     *     released, expired, taken over or force-released): then nothing changed, and the waiter acquires as usual
     */
    default Optional<HandOver> handOver(
            String key, String fromOwnerToken, String ownerToken, String holder, Duration leaseTime) {
        throw new UnsupportedOperationException(getClass().getName() + " does not support hand-over");
    }

    /**
     * Ends our lease on {@code key}, if {@code ownerToken} still owns it. With a positive {@code minHoldTime},
     * a live lease is instead set to end at acquisition plus {@code minHoldTime} (or now, if that passed), even
     * if that is past its current expiry, and can no longer be renewed.
     *
     * @return true when our unexpired lease was removed or shortened; false when it was not ours any more
     */
    boolean release(String key, String ownerToken, Duration minHoldTime);

    /**
     * Removes any lease on {@code key}, whoever owns it: an operator's forced release.
     *
     * @return true when a live lease was removed
     */
    boolean forceRelease(String key);

    /** The live lease on {@code key}, if any. Never exposes the owner token. */
    Optional<LeaseInfo> inspect(String key);

    /**
     * Push wake-ups: asks the store to call {@code listener} when {@code key} may have become free, so that
     * waiters need not poll. Stores without push return a no-op subscription; waiters then back off and
     * re-check at the holder's known expiry.
     */
    default Subscription subscribe(String key, Runnable listener) {
        return Subscription.NONE;
    }

    /** A push subscription; closing it stops the calls. */
    @FunctionalInterface
    interface Subscription extends AutoCloseable {

        /** A subscription that delivers nothing. */
        Subscription NONE = () -> {};

        /**
         * Whether wake-ups are being delivered right now. While false (no push, or its connection is down),
         * waiters poll with backoff; while true they rely on the push and re-check only rarely.
         */
        default boolean delivers() {
            return false;
        }

        @Override
        void close();
    }
}
