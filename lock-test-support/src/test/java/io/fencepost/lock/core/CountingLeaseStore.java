package io.fencepost.lock.core;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.FairQueue;
import io.fencepost.lock.spi.HandOver;
import io.fencepost.lock.spi.HandOverRequest;
import io.fencepost.lock.spi.LeaseHandOver;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.QueueTicket;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.RenewRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** Wraps the in-memory store, counts the calls the engine makes and can simulate an outage. */
final class CountingLeaseStore implements LeaseStore, LeaseHandOver, FairQueue {

    final AtomicInteger acquires = new AtomicInteger();

    final AtomicInteger renewCalls = new AtomicInteger();

    final AtomicInteger releases = new AtomicInteger();

    final AtomicInteger handOvers = new AtomicInteger();

    /** Makes every hand-over report that others wait elsewhere, as a store shared with other processes would. */
    volatile boolean othersWaiting;

    volatile boolean down;

    /** Tickets taken and not yet served or given up, per key. */
    final ConcurrentHashMap<String, Integer> queued = new ConcurrentHashMap<>();

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
    public QueueTicket enqueue(String key, String waiterId, Duration ttl) {
        failIfDown();
        QueueTicket ticket = delegate.enqueue(key, waiterId, ttl);
        queued.merge(key, 1, Integer::sum);
        return ticket;
    }

    @Override
    public void dequeue(QueueTicket ticket) {
        queued.merge(ticket.key(), -1, Integer::sum);
        delegate.dequeue(ticket);
    }

    @Override
    public AcquireResult acquireInTurn(AcquireRequest request, QueueTicket ticket) {
        AcquireResult result = counted(acquires, () -> delegate.acquireInTurn(request, ticket));
        if (result instanceof AcquireResult.Granted && ticket.queued()) {
            queued.merge(request.key(), -1, Integer::sum);
        }
        return result;
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
