package io.fencepost.lock.core;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.HandOver;
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

    final AtomicInteger handOvers = new AtomicInteger();

    /** Makes every hand-over report that others wait elsewhere, as a store shared with other processes would. */
    volatile boolean othersWaiting;

    volatile boolean down;

    /** Tickets taken and not yet served or given up, per key. */
    final java.util.concurrent.ConcurrentHashMap<String, Integer> queued =
            new java.util.concurrent.ConcurrentHashMap<>();

    private final LeaseStore delegate;

    CountingLeaseStore(LeaseStore delegate) {
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

    @Override
    public AcquireResult tryAcquire(String key, String ownerToken, String holder, Duration leaseTime) {
        acquires.incrementAndGet();
        failIfDown();
        return delegate.tryAcquire(key, ownerToken, holder, leaseTime);
    }

    @Override
    public boolean supportsFairness() {
        return delegate.supportsFairness();
    }

    @Override
    public long enqueue(String key, String waiterId, Duration ttl) {
        failIfDown();
        long ticket = delegate.enqueue(key, waiterId, ttl);
        queued.merge(key, 1, Integer::sum);
        return ticket;
    }

    @Override
    public void dequeue(String key, long ticket) {
        queued.merge(key, -1, Integer::sum);
        delegate.dequeue(key, ticket);
    }

    @Override
    public AcquireResult tryAcquireFair(
            String key,
            String ownerToken,
            String holder,
            Duration leaseTime,
            String waiterId,
            long ticket,
            Duration ttl) {
        acquires.incrementAndGet();
        failIfDown();
        AcquireResult result = delegate.tryAcquireFair(key, ownerToken, holder, leaseTime, waiterId, ticket, ttl);
        if (result instanceof AcquireResult.Granted && ticket != Long.MAX_VALUE) {
            queued.merge(key, -1, Integer::sum);
        }
        return result;
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
    public boolean supportsHandOver() {
        return delegate.supportsHandOver();
    }

    @Override
    public Optional<HandOver> handOver(
            String key, String fromOwnerToken, String ownerToken, String holder, Duration leaseTime) {
        handOvers.incrementAndGet();
        failIfDown();
        return delegate.handOver(key, fromOwnerToken, ownerToken, holder, leaseTime)
                .map(handed -> new HandOver(handed.granted(), handed.othersWaiting() || othersWaiting));
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
