package io.fencepost.lock.core;

import io.fencepost.lock.HeldLeaseInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The leases this manager holds, one per key: what reentrancy finds, and what operators list. */
final class HeldLeases {

    private final ConcurrentHashMap<String, HeldLease> byKey = new ConcurrentHashMap<>();

    /**
     * The lease on {@code key} held by the calling thread, with one more hold on it; empty when the thread holds none
     * (a lease of this thread that is no longer held is forgotten).
     */
    Optional<HeldLease> reenter(String key) {
        HeldLease mine = byKey.get(key);
        if (mine == null || mine.ownerThread != Thread.currentThread()) {
            return Optional.empty();
        }
        if (mine.tryReenter()) {
            return Optional.of(mine);
        }
        byKey.remove(key, mine);
        return Optional.empty();
    }

    void add(HeldLease lease) {
        byKey.put(lease.key, lease);
    }

    void remove(HeldLease lease) {
        byKey.remove(lease.key, lease);
    }

    /** The lease this manager holds on {@code key}, if any, whichever thread took it. */
    Optional<HeldLease> get(String key) {
        return Optional.ofNullable(byKey.get(key));
    }

    /** What is held right now. */
    List<HeldLeaseInfo> infos() {
        List<HeldLeaseInfo> infos = new ArrayList<>();
        for (HeldLease lease : byKey.values()) {
            if (lease.isHeld()) {
                infos.add(lease.info());
            }
        }
        return infos;
    }
}
