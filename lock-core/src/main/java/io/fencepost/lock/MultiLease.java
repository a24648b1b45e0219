package io.fencepost.lock;

import java.util.List;

/**
 * The leases on several keys taken together, all or none, by {@link LockManager#acquireAll}: one {@link Lease} per key,
 * each with its own fencing token, released together.
 */
public interface MultiLease extends AutoCloseable {

    /** One lease per key, in the order the keys were given; each has its own fencing token. */
    List<Lease> leases();

    /**
     * The lease on {@code key}.
     *
     * @throws IllegalArgumentException when {@code key} is not one of the set's keys
     */
    Lease lease(String key);

    /** Whether every lease of the set is still ours: false once any of them is lost, expired or released. */
    boolean isHeld();

    /**
     * Releases every lease of the set. Idempotent: only the first call on a set has an effect.
     *
     * @return true when this call removed every lease of the set from the store; false when it was already released,
     *     or when a lease of the set was lost or taken over (the others are released all the same)
     * @throws LockStoreException when the store could not be reached for a lease (every other lease is still released;
     *     the lease that failed expires on its own)
     */
    boolean release();

    /** Same as {@link #release()}, but never throws for a store outage: a lease not released then simply expires. */
    @Override
    void close();
}
