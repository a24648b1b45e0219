package io.fencepost.lock.core;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.RenewRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** Wraps a store, counts the calls the engine makes and can simulate an outage. */
final class CountingLeaseStore implements LeaseStore {

    final AtomicInteger acquires = new AtomicInteger();

    final AtomicInteger renewCalls = new AtomicInteger();

    final AtomicInteger releases = new AtomicInteger();

    volatile boolean down;

    private final LeaseStore delegate;

    CountingLeaseStore(LeaseStore delegate) {
        this.delegate = delegate;
    }

    int calls() {
        return acquires.get() + renewCalls.get() + releases.get();
    }

    private void failIfDown() {
        if (down) {
            throw new LockStoreException("simulated outage");
        }
    }

    @Override
    public AcquireResult tryAcquire(String key, String ownerToken, String holder, Duration leaseTime) {
        acquires.incrementAndGet();
        failIfDown();
        return delegate.tryAcquire(key, ownerToken, holder, leaseTime);
    }

    @Override
    public Map<String, Instant> renew(Collection<RenewRequest> requests) {
        renewCalls.incrementAndGet();
        failIfDown();
        return delegate.renew(requests);
    }

    @Override
    public boolean release(String key, String ownerToken, Duration minHoldTime) {
        releases.incrementAndGet();
        failIfDown();
        return delegate.release(key, ownerToken, minHoldTime);
    }

    @Override
    public boolean forceRelease(String key) {
        releases.incrementAndGet();
        failIfDown();
        return delegate.forceRelease(key);
    }

    @Override
    public Optional<LeaseInfo> inspect(String key) {
        failIfDown();
        return delegate.inspect(key);
    }

    @Override
    public Subscription subscribe(String key, Runnable listener) {
        return delegate.subscribe(key, listener);
    }
}
