package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.MultiLease;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * The leases of one set taken together: each an ordinary lease of this manager (renewed in the same batch as every
 * other, lost on its own), released together. The set is held while every one of them is.
 */
final class LeaseSet implements MultiLease {

    private final List<Lease> leases;

    private final Map<String, Lease> byKey = new LinkedHashMap<>();

    private final AtomicBoolean released = new AtomicBoolean();

    LeaseSet(List<Lease> leases) {
        this.leases = List.copyOf(leases);
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
        if (!released.compareAndSet(false, true)) {
            return false;
        }
        boolean all = true;
        LockStoreException failure = null;
        // Every lease is released even when one fails: the rest must not wait for their expiry.
        for (Lease lease : leases) {
            try {
                all &= lease.release();
            } catch (LockStoreException e) {
                all = false;
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return all;
    }

    @Override
    public void close() {
        if (released.compareAndSet(false, true)) {
            leases.forEach(Lease::close);
        }
    }

    @Override
    public String toString() {
        return leases.stream().map(Lease::toString).collect(Collectors.joining(", ", "LeaseSet[", "]"));
    }
}
