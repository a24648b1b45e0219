package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.MultiLease;
import io.fencepost.lock.spi.MultiKeyAcquire;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * The leases of one set taken together: each an ordinary lease of this manager (renewed in the same batch as every
 * other, lost on its own), released together, in one step of the store where it can. The set is held while every one
 * of them is.
 */
final class LeaseSet implements MultiLease {

    private final List<LeaseHold> holds;

    private final List<Lease> leases;

    private final Map<String, Lease> byKey = new LinkedHashMap<>();

    private final AtomicBoolean released = new AtomicBoolean();

    private final Releases releases;

    private final MultiKeyAcquire store;

    LeaseSet(List<LeaseHold> holds, Releases releases, MultiKeyAcquire store) {
        this.holds = List.copyOf(holds);
        this.leases = List.copyOf(holds);
        this.releases = releases;
        this.store = store;
        for (Lease lease : this.leases) {
            byKey.put(lease.key(), lease);
        }
    }

    @Override
    public List<Lease> leases() {
        return leases;
    }

    @Override
    public Lease lease(String key) {
        Lease lease = byKey.get(key);
        if (lease == null) {
            throw new IllegalArgumentException(
                    "lock '" + key + "' is not in this set of " + leases.size() + " keys: ask for one of its keys");
        }
        return lease;
    }

    @Override
    public boolean isHeld() {
        if (released.get()) {
            return false;
        }
        for (Lease lease : leases) {
            if (!lease.isHeld()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean release() {
        return released.compareAndSet(false, true) && end(true);
    }

    @Override
    public void close() {
        if (released.compareAndSet(false, true)) {
            end(false);
        }
    }

    /** Ends every hold of the set not released on its own already; every lease is released even when one fails. */
    private boolean end(boolean throwOnStoreFailure) {
        List<HeldLease> ending = holds.stream()
                .map(LeaseHold::claimForSetRelease)
                .filter(Objects::nonNull)
                .toList();
        boolean all = releases.releaseAll(ending, store, throwOnStoreFailure);
        return all && ending.size() == holds.size();
    }

    @Override
    public String toString() {
        return leases.stream().map(Lease::toString).collect(Collectors.joining(", ", "LeaseSet[", "]"));
    }
}
