package io.fencepost.lock.memory;

import io.fencepost.lock.LeaseInfo;
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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link LeaseStore} in this JVM's memory, for users' unit tests and examples. It honours the whole store
 * contract, hand-over and fair queue included, with its {@link Clock} as the store clock (inject
 * {@link MutableClock} to move time by hand). It gives no protection across processes.
 */
public final class InMemoryLeaseStore implements LeaseStore, LeaseHandOver, FairQueue {

    private final Clock clock;

    private final ReentrantLock lock = new ReentrantLock();

    private final Map<String, Row> rows = new HashMap<>();

    private final Map<String, List<Runnable>> subscribers = new ConcurrentHashMap<>();

    private final Map<String, TreeMap<Long, Ticket>> queues = new HashMap<>();

    /** Fencing tokens and queue tickets come from this one counter, as from one sequence in PostgreSQL. */
    private long lastToken;

    /** A store on the system clock. */
    public InMemoryLeaseStore() {
        this(Clock.systemUTC());
    }

    /** A store on the given clock. */
    public InMemoryLeaseStore(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    private record Ticket(String waiterId, Instant expiresAt) {}

    private record Row(String ownerToken, String holder, long token, Instant acquiredAt, Instant expiresAt) {
        boolean liveAt(Instant now) {
            return expiresAt.isAfter(now);
        }
    }

    @Override
    public AcquireResult acquire(AcquireRequest request) {
        lock.lock();
        try {
            Instant now = clock.instant();
            Row current = rows.get(request.key());
            if (current != null && current.liveAt(now)) {
                return AcquireResult.Busy.forAtMost(Duration.between(now, current.expiresAt()));
            }
            Row row = new Row(request.ownerToken(), request.holder(), ++lastToken, now, now.plus(request.leaseTime()));
            rows.put(request.key(), row);
            return new AcquireResult.Granted(row.token(), row.acquiredAt(), row.expiresAt());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public QueueTicket enqueue(String key, String waiterId, Duration ttl) {
        lock.lock();
        try {
            long ticket = ++lastToken;
            queues.computeIfAbsent(key, k -> new TreeMap<>())
                    .put(ticket, new Ticket(waiterId, clock.instant().plus(ttl)));
            return new QueueTicket(key, waiterId, ticket, ttl);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void dequeue(QueueTicket ticket) {
        lock.lock();
        try {
            TreeMap<Long, Ticket> queue = queues.get(ticket.key());
            if (queue != null) {
                queue.remove(ticket.number());
                if (queue.isEmpty()) {
                    queues.remove(ticket.key());
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public AcquireResult acquireInTurn(AcquireRequest request, QueueTicket ticket) {
        lock.lock();
        try {
            Instant now = clock.instant();
            TreeMap<Long, Ticket> queue = queues.getOrDefault(request.key(), new TreeMap<>());
            queue.values().removeIf(t -> !t.expiresAt().isAfter(now));
            boolean earlierWaiter = !queue.headMap(ticket.number(), false).isEmpty();
            AcquireResult result = earlierWaiter ? AcquireResult.Busy.unknown() : acquire(request);
            if (result instanceof AcquireResult.Granted) {
                queue.remove(ticket.number());
            } else {
                queue.replaceAll((t, entry) -> entry.waiterId().equals(ticket.waiterId())
                        ? new Ticket(ticket.waiterId(), now.plus(ticket.ttl()))
                        : entry);
            }
            if (queue.isEmpty()) {
                queues.remove(request.key());
            } else {
                queues.put(request.key(), queue);
            }
            return result;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Map<String, Instant> renew(Collection<RenewRequest> requests) {
        Map<String, Instant> renewed = new HashMap<>();
        lock.lock();
        try {
            Instant now = clock.instant();
            for (RenewRequest request : requests) {
                Row current = rows.get(request.key());
                if (current != null && current.ownerToken().equals(request.ownerToken()) && current.liveAt(now)) {
                    Row row = new Row(
                            current.ownerToken(),
                            current.holder(),
                            current.token(),
                            current.acquiredAt(),
                            now.plus(request.leaseTime()));
                    rows.put(request.key(), row);
                    renewed.put(request.key(), row.expiresAt());
                }
            }
        } finally {
            lock.unlock();
        }
        return renewed;
    }

    @Override
    public Optional<HandOver> handOver(HandOverRequest request) {
        AcquireRequest to = request.to();
        lock.lock();
        try {
            Instant now = clock.instant();
            Row current = rows.get(to.key());
            if (current == null || !current.ownerToken().equals(request.fromOwnerToken()) || !current.liveAt(now)) {
                return Optional.empty();
            }
            Row row = new Row(to.ownerToken(), to.holder(), ++lastToken, now, now.plus(to.leaseTime()));
            rows.put(to.key(), row);
            // This store wakes every subscriber on every release, so it never needs to note who waits.
            return Optional.of(
                    new HandOver(new AcquireResult.Granted(row.token(), row.acquiredAt(), row.expiresAt()), false));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean release(ReleaseRequest request) {
        String key = request.key();
        boolean removed;
        lock.lock();
        try {
            Instant now = clock.instant();
            Row current = rows.get(key);
            if (current == null || !current.ownerToken().equals(request.ownerToken())) {
                return false;
            }
            removed = current.liveAt(now);
            if (!request.keepsMinimumHold() || !removed) {
                rows.remove(key);
            } else {
                Instant keepUntil = current.acquiredAt().plus(request.minHoldTime());
                if (keepUntil.isBefore(now)) {
                    keepUntil = now;
                }
                // A fresh owner token: the released row can never be renewed again.
                rows.put(
                        key,
                        new Row(
                                "released:" + current.token(),
                                current.holder(),
                                current.token(),
                                current.acquiredAt(),
                                keepUntil));
            }
        } finally {
            lock.unlock();
        }
        wakeSubscribers(key);
        return removed;
    }

    @Override
    public boolean forceRelease(String key) {
        boolean removed;
        lock.lock();
        try {
            Row row = rows.remove(key);
            removed = row != null && row.liveAt(clock.instant());
        } finally {
            lock.unlock();
        }
        wakeSubscribers(key);
        return removed;
    }

    private void wakeSubscribers(String key) {
        for (Runnable subscriber : subscribers.getOrDefault(key, List.of())) {
            subscriber.run();
        }
    }

    @Override
    public Optional<LeaseInfo> inspect(String key) {
        lock.lock();
        try {
            Row row = rows.get(key);
            if (row == null || !row.liveAt(clock.instant())) {
                return Optional.empty();
            }
            return Optional.of(new LeaseInfo(key, row.token(), row.holder(), row.acquiredAt(), row.expiresAt()));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Subscription subscribe(String key, Runnable listener) {
        subscribers.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(listener);
        return new Subscription() {
            @Override
            public boolean delivers() {
                return true; // every release and forced release in this store calls its subscribers
            }

            @Override
            public void close() {
                subscribers.computeIfPresent(key, (k, list) -> {
                    list.remove(listener);
                    return list.isEmpty() ? null : list;
                });
            }
        };
    }
}
