package io.fencepost.lock.core;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.HandOver;
import io.fencepost.lock.spi.HandOverRequest;
import io.fencepost.lock.spi.LeaseHandOver;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.RenewRequest;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Wraps the in-memory store, counts the calls the engine makes and can simulate an outage. It hides the store's waiter
 * registrations, so that waiters poll and wake as over a store without them (fair mode then needs the store itself).
 */
final class CountingLeaseStore implements LeaseStore, LeaseHandOver {

    final AtomicInteger acquires = new AtomicInteger();

    final AtomicInteger renewCalls = new AtomicInteger();

    final AtomicInteger releases = new AtomicInteger();

    final AtomicInteger handOvers = new AtomicInteger();

    /** Makes every hand-over report that others wait elsewhere, as a store shared with other processes would. */
    volatile boolean othersWaiting;

    volatile boolean down;

    private final InMemoryLeaseStore delegate;

    CountingLeaseStore(InMemoryLeaseStore delegate) {
        this.delegate = delegate;
    }

    int calls() {
        return acquires.get() + renewCalls.get() + releases.get() + handOvers.get();
    }

    private void failIfDown() {
        if (down) {
            throw new LockStoreException("simulated outage");
        }
    }

    /** Counts a call in {@code counter}, fails it during an outage, else makes it. */
    private <T> T counted(AtomicInteger counter, Supplier<T> call) {
        counter.incrementAndGet();
        failIfDown();
        return call.get();
    }

    @Override
    public AcquireResult acquire(AcquireRequest request) {
        return counted(acquires, () -> delegate.acquire(request));
    }

    @Override
    public Map<RenewRequest, Instant> renew(Collection<RenewRequest> requests) {
        return counted(renewCalls, () -> delegate.renew(requests));
    }

    @Override
    public boolean release(ReleaseRequest request) {
        return counted(releases, () -> delegate.release(request));
    }

    @Override
    public Optional<HandOver> handOver(HandOverRequest request) {
        return counted(handOvers, () -> delegate.handOver(request))
                .map(handed -> new HandOver(handed.granted(), handed.othersWaiting() || othersWaiting));
    }

    @Override
    public boolean forceRelease(String key) {
        return counted(releases, () -> delegate.forceRelease(key));
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
