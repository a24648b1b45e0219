package io.fencepost.lock;

/**
 * Work to run while holding a lease; receives the lease so that it can pass the fencing token on.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface LockedCallable<T> {

    /** Runs the work under the lease. */
    T call(Lease lease) throws Exception;
}
