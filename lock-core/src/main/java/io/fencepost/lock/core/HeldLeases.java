package io.fencepost.lock.core;

import io.fencepost.lock.HeldLeaseInfo;
import io.fencepost.lock.LockOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The leases this manager holds, by key: one exclusive lease, or several shared leases or permits. What reentrancy
 * finds, what local waiters look at before asking the store, and what operators list.
 */
final class HeldLeases {

    private final ConcurrentHashMap<String, List<HeldLease>> byKey = new ConcurrentHashMap<>();

    /**
     * The calling thread's reentrant lease on {@code key} of the kind {@code options} ask for, with one more hold on it; empty
     * when the thread holds none (a lease of this thread that is no longer held is forgotten).
     */
    Optional<HeldLease> reenter(String key, LockOptions options) {
        for (HeldLease mine : on(key)) {
            if (mine.ownerThread == Thread.currentThread()
                    && mine.options.reentrant()
                    && mine.mode() == options.mode()
                    && mine.options.permits() == options.permits()) {
                if (mine.tryReenter()) {
                    return Optional.of(mine);
                }
                remove(mine);
            }
        }
        return Optional.empty();
    }

    /** Whether the calling thread holds a live lease on {@code key} through this manager. */
    boolean heldByCurrentThread(String key) {
        for (HeldLease mine : on(key)) {
            if (mine.ownerThread == Thread.currentThread() && mine.isHeld()) {
                return true;
            }
        }
        return false;
    }

    void add(HeldLease lease) {
        byKey.computeIfAbsent(lease.key, k -> new CopyOnWriteArrayList<>()).add(lease);
    }

    void remove(HeldLease lease) {
        byKey.computeIfPresent(lease.key, (k, leases) -> {
            leases.remove(lease);
            return leases.isEmpty() ? null : leases;
        });
    }

    /** The leases this manager holds on {@code key}, whichever threads took them. */
    List<HeldLease> on(String key) {
        return byKey.getOrDefault(key, List.of());
    }

    /** What is held right now. */
    List<HeldLeaseInfo> infos() {
        List<HeldLeaseInfo> infos = new ArrayList<>();
        for (List<HeldLease> leases : byKey.values()) {
            for (HeldLease lease : leases) {
                if (lease.isHeld()) {
                    infos.add(lease.info());
                }
            }
        }
        return infos;
    }
}
