package io.fencepost.lock;

import java.time.Instant;

/**
 * A lease as the manager holding it sees it: for endpoints and diagnostics. Carries no owner token.
 *
 * @param key the locked key
 * @param name the low-cardinality lock name given in the options
 * @param fencingToken the grant's fencing token
 * @param acquiredAt when the grant was made (store clock)
 * @param expiresAt when the lease ends unless renewed, as last confirmed (store clock)
 * @param holdCount how many reentrant holds are open on the grant
 * @param renewals how many renewals the store confirmed
 * @param holderThread the name of the thread that took the lease
 * @param mode exclusive, shared, or one of a number of permits
 * @param permits how many leases of the key may be held at once: 1 for exclusive, 0 (no count) for shared
 */
public record HeldLeaseInfo(
        String key,
        String name,
        long fencingToken,
        Instant acquiredAt,
        Instant expiresAt,
        int holdCount,
        long renewals,
        String holderThread,
        LeaseMode mode,
        int permits) {}
