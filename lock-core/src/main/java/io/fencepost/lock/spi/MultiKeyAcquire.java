package io.fencepost.lock.spi;

import java.util.List;

/**
 * A store ability: takes exclusive leases on several keys in one atomic step, all of them or none. No other client ever
 * sees some keys of the set held and others not; each key gets its own fencing token, drawn like a single acquire's
 * so that every key's tokens still strictly increase in grant order; and a set never waits for one key while holding
 * another, so that two overlapping sets cannot deadlock. The engine finds this ability once, when it is built; without
 * it, {@code LockManager.acquireAll} is refused (taking the keys one after another would show partial sets to others).
 */
public interface MultiKeyAcquire {

    /**
     * One attempt to take every key of the set: each request succeeds as a single exclusive {@link
     * LeaseStore#acquire} would, and the set is granted only when all of them would be; otherwise nothing changes.
     *
     * @return every grant, in the order of the requests; or the set is busy, naming a key that is held
     */
    MultiAcquireResult acquireAll(MultiAcquireRequest request);

    /**
     * Releases several exclusive leases, each as {@link LeaseStore#release} would; the engine ends a set this way.
     * Not atomic: each release stands on its own, and a store may take one step for all of them where it can.
     *
     * @return per request, in their order, what {@link LeaseStore#release} would have returned for it
     */
    List<Boolean> releaseAll(List<ReleaseRequest> requests);
}
