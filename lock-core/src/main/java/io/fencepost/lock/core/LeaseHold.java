package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseLostException;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/** One hold on a {@link Grant}: reentrant acquisitions get their own handle on the same grant. */
final class LeaseHandle implements Lease {

    private final DefaultLockManager manager;

    private final Grant grant;

    private final AtomicBoolean released = new AtomicBoolean();

    LeaseHandle(DefaultLockManager manager, Grant grant) {
        this.manager = manager;
        this.grant = grant;
    }

    Grant grant() {
        return grant;
    }

    @Override
    public String key() {
        return grant.key;
    }

    @Override
    public long fencingToken() {
        return grant.fencingToken;
    }

    @Override
    public Instant expiresAt() {
        return grant.expiresAt();
    }

    @Override
    public boolean isHeld() {
        return !released.get() && grant.isHeld();
    }

    @Override
    public void checkHeld() {
        if (released.get()) {
            throw new LeaseLostException(grant.key, grant.fencingToken, "it was released");
        }
        grant.checkHeld();
    }

    @Override
    public void onLost(Consumer<? super LeaseLostException> listener) {
        grant.onLost(java.util.Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public boolean release() {
        if (!released.compareAndSet(false, true)) {
            return false;
        }
        return manager.releaseHold(grant, true);
    }

    @Override
    public void close() {
        if (released.compareAndSet(false, true)) {
            manager.releaseHold(grant, false);
        }
    }

    @Override
    public String toString() {
        return grant.toString();
    }
}
