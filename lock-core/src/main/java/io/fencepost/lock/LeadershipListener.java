package io.fencepost.lock;

/**
 * Told when this candidate of a {@link LeaderElection} becomes leader and when it stops being one. Calls for one
 * election come one at a time, {@code revoked} always after the {@code granted} of the same term.
 */
public interface LeadershipListener {

    /**
     * This candidate is the leader now; {@code leadership.fencingToken()} is its term, higher than every earlier
     * term of the group. Pass it to the resources the leader writes to, so that a deposed leader's late writes are
     * refused.
     */
    void granted(Lease leadership);

    /**
     * This candidate is no longer the leader: its lease was lost (no later than its safe local deadline, before the
     * store can grant anyone else), it yielded, or the election was closed (before the lease is released).
     */
    void revoked(Lease leadership);
}
