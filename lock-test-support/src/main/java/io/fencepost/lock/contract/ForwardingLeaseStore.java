package io.fencepost.lock.contract;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.RenewRequest;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A store that passes every call to another: the base of a test's store that changes one call (fails it, delays it,
 * or runs something before it) to see what the engine or a checker makes of it. Only {@link LeaseStore} is
 * forwarded; a decorator of a store's other abilities implements and forwards them itself.
 */
public class ForwardingLeaseStore implements LeaseStore {

    private final LeaseStore delegate;

    public ForwardingLeaseStore(LeaseStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
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
