package io.fencepost.lock;

import java.util.Collection;
import java.util.Optional;

/**
 * Grants time-bounded, fenced leases on string keys; the entry point of the library.
 *
 * <p>Implementations are thread-safe. A lease is owned by the manager that granted it: another
 * manager instance, in this JVM or elsewhere, is another client and contends normally.
 */
public interface LockManager {

    /**
     * Acquires the lease on {@code key}, waiting up to {@link LockOptions#waitTime()}.
     *
     * @throws LockNotAcquiredException when the key stayed held by someone else for the whole wait
     * @throws LockStoreException when the store could not be reached or failed (acquire fails closed)
     * @throws IllegalArgumentException for a null, blank or over-long key
     */
    Lease acquire(String key, LockOptions options);

    /** Like {@link #acquire}, but returns empty instead of throwing {@link LockNotAcquiredException}. */
    Optional<Lease> tryAcquire(String key, LockOptions options);

    /**
     * Acquires the lease, runs {@code work} with it as {@link LockContext#current()}, and always releases it.
     *
     * <p>Unchecked exceptions and errors from {@code work} propagate unchanged; a checked exception is
     * wrapped in {@link LockedWorkException}.
     */
    default <T> T withLock(String key, LockOptions options, LockedCallable<T> work) {
        try (Lease lease = acquire(key, options)) {
            return LockContext.callWith(lease, work);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new LockedWorkException(key, e);
        }
    }

    /**
     * Acquires exclusive leases on all of {@code keys} at once, or none of them, waiting up to
     * {@link LockOptions#waitTime()}: while it waits it holds none of them, so two callers whose sets overlap never
     * deadlock. Each key gets its own lease and fencing token; at most {@link
     * io.fencepost.lock.spi.StoreLimits#MAX_KEYS_PER_SET} keys. Shared leases, permits and fair mode are not offered
     * for sets, and a key the calling thread already holds through this manager is refused (unless the options are
     * not reentrant: it is then busy like any other holder's key).
     *
     * @throws LockNotAcquiredException when some key of the set stayed held by someone else for the whole wait
     * @throws LockStoreException when the store could not be reached or failed (acquire fails closed)
     * @throws IllegalArgumentException for an empty set, a null, invalid or repeated key, more keys than the limit, or
     *     options asking for shared leases, permits or fair mode, before the store is asked
     * @throws IllegalStateException when the calling thread already holds a key of the set through this manager
     * @throws UnsupportedOperationException when the manager's store cannot take several keys in one step
     */
    MultiLease acquireAll(Collection<String> keys, LockOptions options);

    /** Like {@link #acquireAll}, but returns empty instead of throwing {@link LockNotAcquiredException}. */
    Optional<MultiLease> tryAcquireAll(Collection<String> keys, LockOptions options);

    /** The store's view of {@code key}: the live lease on it, if any. Never includes an owner token. */
    Optional<LeaseInfo> inspect(String key);
}
