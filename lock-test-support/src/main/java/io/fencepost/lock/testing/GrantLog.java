package io.fencepost.lock.testing;

import io.fencepost.lock.Lease;
import io.fencepost.lock.spi.LockListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records every grant of the managers of one {@link TestLocks}, in grant order, and passes every event on to the
 * application's own listeners (metrics, logs), so that a test manager is observed like the real one.
 */
final class GrantLog {

    private final List<Grant> grants = new CopyOnWriteArrayList<>();

    List<Grant> grants() {
        return List.copyOf(grants);
    }

    void clear() {
        grants.clear();
    }

    /** The listener of the instance named {@code holder}. */
    LockListener listenerFor(String holder, List<LockListener> listeners) {
        List<LockListener> next = List.copyOf(listeners);
        return new LockListener() {

            @Override
            public void acquired(String name, Lease lease, Duration waited) {
                grants.add(new Grant(holder, lease.key(), lease.fencingToken()));
                next.forEach(listener -> listener.acquired(name, lease, waited));
            }

            @Override
            public void notAcquired(String name, String key, Duration waited, boolean skipped) {
                next.forEach(listener -> listener.notAcquired(name, key, waited, skipped));
            }

            @Override
            public void acquireFailed(String name, String key, Duration waited, RuntimeException failure) {
                next.forEach(listener -> listener.acquireFailed(name, key, waited, failure));
            }

            @Override
            public void released(String name, Lease lease, boolean removed, Duration held) {
                next.forEach(listener -> listener.released(name, lease, removed, held));
            }

            @Override
            public void renewed(String name, Lease lease) {
                next.forEach(listener -> listener.renewed(name, lease));
            }

            @Override
            public void renewalFailed(String name, Lease lease, RuntimeException failure) {
                next.forEach(listener -> listener.renewalFailed(name, lease, failure));
            }

            @Override
            public void lost(String name, Lease lease, String reason) {
                next.forEach(listener -> listener.lost(name, lease, reason));
            }
        };
    }
}
