package io.fencepost.lock;

import java.util.List;

/**
 * What operators and tooling (such as the Actuator endpoint) may ask of a lock manager beyond locking: the
 * leases it holds, and a forced release for a key that is stuck.
 */
public interface LockAdmin {

    /** The leases this manager holds right now, one per key. Never includes an owner token. */
    List<HeldLeaseInfo> heldLeases();

    /**
     * Removes whatever lease the store has on {@code key}, whoever holds it. The holder is not asked: its next
     * renewal finds the lease gone and reports it lost, and its fenced writes are rejected once a later grant's
     * token has been accepted. For operators freeing a key whose holder is known to be gone or stuck.
     *
     * @return true when a live lease was removed
     */
    boolean forceRelease(String key);
}
