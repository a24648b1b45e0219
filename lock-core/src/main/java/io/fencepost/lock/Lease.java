package io.fencepost.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * A granted lease on one key: proof of exclusive ownership until {@link #expiresAt()}, and the fencing
 * token that a protected resource uses to reject writes from earlier, stale holders.
 */
public interface Lease extends AutoCloseable {

    /** The locked key. */
    String key();

    /** The token of this grant: strictly greater than the token of every earlier grant of this key. */
    long fencingToken();

    /** When the lease ends unless renewed, as last confirmed by the store (store clock). */
    Instant expiresAt();

    /** Whether the lease is still ours: false once released, expired or lost. */
    boolean isHeld();

    /**
     * Throws when the lease is no longer held; call it right before a side effect that needs the lock.
     *
     * @throws LeaseLostException when {@link #isHeld()} is false
     */
    void checkHeld();

    /**
     * Registers a callback that runs once if the lease is lost while held: taken over, expired, or not confirmed
     * by the store before its safe deadline. It never runs after a release. It runs on the renewal thread and
     * must not block; if the lease is already lost, it runs at once on the calling thread. Reentrant holds of
     * one grant share their callbacks.
     */
    void onLost(Consumer<? super LeaseLostException> listener);

    /**
     * Moves the end of the lease: owner-checked, in one store call, it then ends {@code leaseTime} after the store's
     * clock reads "now" (earlier than before, too, but never before acquisition plus the minimum hold time). Renewal, if
     * on, goes on with this lease time.
     *
     * @return true when the store confirmed the new end; false when the lease was lost, had expired or was released
     * @throws IllegalArgumentException for a null, non-positive or too long duration, before the store is asked
     * @throws LockStoreException when the store could not be reached (the lease may still be held)
     */
    boolean extend(Duration leaseTime);

    /**
     * As {@link #extend(Duration)}, and the key stays locked until at least {@code minHoldTime} after the store's "now"
     * of this call: a release before then keeps the key locked, ownerless, until then (as the options' minimum hold
     * does), and no later extension or renewal ends the lease earlier. The store's clock alone decides; an earlier
     * minimum hold that ends later still holds. ShedLock's {@code extend(lockAtMostFor, lockAtLeastFor)}.
     *
     * @param minHoldTime zero for none; at most {@code leaseTime}
     * @return true when the store confirmed the new end; false when the lease was lost, had expired or was released
     * @throws IllegalArgumentException for a null, non-positive or too long lease time, or a null, negative or longer
     *     than {@code leaseTime} minimum hold, before the store is asked
     * @throws LockStoreException when the store could not be reached (the lease may still be held)
     */
    boolean extend(Duration leaseTime, Duration minHoldTime);

    /**
     * Releases the lease. Idempotent: only the first call on a handle has an effect.
     *
     * @return true when this call removed our lease from the store; false when it was already released,
     *     lost or taken over, or when an outer reentrant hold of the same lease is still open
     * @throws LockStoreException when the store could not be reached (the lease then expires on its own)
     */
    boolean release();

    /** Same as {@link #release()}, but never throws for a store outage: the lease then simply expires. */
    @Override
    void close();
}
