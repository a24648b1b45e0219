package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.contract.ForwardingLeaseStore;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.Registration;
import io.fencepost.lock.spi.WaiterRelay;
import java.util.function.Consumer;

/**
 * The in-memory store, where another client's lease is released right before a waiter withdraws its registration:
 * the release hands the key to the registration, and the withdrawal reports it.
 */
final class ReleasesBeforeWithdrawal extends ForwardingLeaseStore implements WaiterRelay {

    private final InMemoryLeaseStore delegate;

    private final Lease releasedFirst;

    ReleasesBeforeWithdrawal(InMemoryLeaseStore delegate, Lease releasedFirst) {
        super(delegate);
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
}
