package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.Registration;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.RenewRequest;
import io.fencepost.lock.spi.WaiterRelay;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The in-memory store, where another client's lease is released right before a waiter withdraws its registration:
 * the release hands the key to the registration, and the withdrawal reports it.
 */
final class ReleasesBeforeWithdrawal implements LeaseStore, WaiterRelay {

    private final InMemoryLeaseStore delegate;

    private final Lease releasedFirst;

    ReleasesBeforeWithdrawal(InMemoryLeaseStore delegate, Lease releasedFirst) {
        this.delegate = delegate;
        this.releasedFirst = releasedFirst;
    }

    @Override
    public boolean withdraw(Registration registration, String ownerToken) {
        releasedFirst.release();
        return delegate.withdraw(registration, ownerToken);
    }

    @Override
    public AcquireResult acquireOrRegister(AcquireRequest request, Registration registration) {
        return delegate.acquireOrRegister(request, registration);
    }

    @Override
    public Subscription onHandOver(
            Registration registration, String ownerToken, Consumer<AcquireResult.Granted> handedOver) {
        return delegate.onHandOver(registration, ownerToken, handedOver);
    }

    @Override
    public AcquireResult acquire(AcquireRequest request) {
        return delegate.acquire(request);
    }

    @Override
    public Map<RenewRequest, Instant> renew(Collection<RenewRequest> requests) {
        return delegate.renew(requests);
    }

    @Override
    public boolean release(ReleaseRequest request) {
        return delegate.release(request);
    }

    @Override
    public boolean forceRelease(String key) {
        return delegate.forceRelease(key);
    }

    @Override
    public Optional<LeaseInfo> inspect(String key) {
        return delegate.inspect(key);
    }

    @Override
    public Subscription subscribe(String key, Runnable wakeUp) {
        return delegate.subscribe(key, wakeUp);
    }
}
