package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.Lease;
import io.fencepost.lock.spi.LockListener;
import java.time.Duration;
import java.util.List;

/** Tells every {@link LockListener} bean, in order; one lock manager takes one listener. */
final class CompositeLockListener implements LockListener {

    private final List<LockListener> listeners;

    private CompositeLockListener(List<LockListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    static LockListener of(List<LockListener> listeners) {
        return switch (listeners.size()) {
            case 0 -> LockListener.NONE;
            case 1 -> listeners.get(0);
            default -> new CompositeLockListener(listeners);
        };
    }

    @Override
    public void acquired(String name, Lease lease, Duration waited) {
        listeners.forEach(listener -> listener.acquired(name, lease, waited));
    }

    @Override
    public void notAcquired(String name, String key, Duration waited, boolean skipped) {
        listeners.forEach(listener -> listener.notAcquired(name, key, waited, skipped));
    }

    @Override
    public void acquireFailed(String name, String key, Duration waited, RuntimeException failure) {
        listeners.forEach(listener -> listener.acquireFailed(name, key, waited, failure));
    }

    @Override
    public void released(String name, Lease lease, boolean removed, Duration held) {
        listeners.forEach(listener -> listener.released(name, lease, removed, held));
    }

    @Override
    public void renewed(String name, Lease lease) {
        listeners.forEach(listener -> listener.renewed(name, lease));
    }

    @Override
    public void renewalFailed(String name, Lease lease, RuntimeException failure) {
        listeners.forEach(listener -> listener.renewalFailed(name, lease, failure));
    }

    @Override
    public void lost(String name, Lease lease, String reason) {
        listeners.forEach(listener -> listener.lost(name, lease, reason));
    }

    @Override
    public void swept(String kind, int removed) {
        listeners.forEach(listener -> listener.swept(kind, removed));
    }
}
