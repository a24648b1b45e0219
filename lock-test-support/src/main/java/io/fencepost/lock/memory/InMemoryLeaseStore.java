package io.fencepost.lock.memory;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LeaseMode;
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
import io.fencepost.lock.spi.StoreLimits;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
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
 * contract, shared leases, permits, hand-over and fair queue included, with its {@link Clock} as the store clock
 * (inject {@link MutableClock} to move time by hand). It gives no protection across processes.
 */
public final class InMemoryLeaseStore implements LeaseStore, LeaseHandOver, FairQueue {

    private final Clock clock;

    private final ReentrantLock lock = new ReentrantLock();

    private final Map<String, Key> keys = new HashMap<>();

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

    /** One lease of a key. */
    private record Holder(String ownerToken, String holder, long token, Instant acquiredAt, Instant expiresAt) {
        boolean liveAt(Instant now) {
            return expiresAt.isAfter(now);
        }

        Holder expiringAt(Instant newExpiresAt) {
            return new Holder(ownerToken, holder, token, acquiredAt, newExpiresAt);
        }
    }

    /** The leases of one key: one exclusive lease, or shared leases, or up to {@code permits} permits. */
    private static final class Key {
        LeaseMode mode;
        int permits;
        final List<Holder> holders = new ArrayList<>();
        Instant exclusiveWaitingUntil = Instant.MIN;

        Key(LeaseMode mode, int permits) {
            this.mode = mode;
            this.permits = permits;
        }

        /** The live leases, after dropping the expired ones. */
        List<Holder> live(Instant now) {
            holders.removeIf(h -> !h.liveAt(now));
            return holders;
        }

        /** Whether a waiting exclusive request holds new shared leases back. */
        boolean writerWaits(Instant now) {
            return exclusiveWaitingUntil.isAfter(now);
        }

        Optional<Holder> owned(String ownerToken) {
            return holders.stream()
                    .filter(h -> h.ownerToken().equals(ownerToken))
                    .findFirst();
        }

        void replace(Holder old, Holder updated) {
            holders.set(holders.indexOf(old), updated);
        }
    }

    @Override
    public AcquireResult acquire(AcquireRequest request) {
        lock.lock();
        try {
            Instant now = clock.instant();
            Key key = keys.get(request.key());
            List<Holder> live = key == null ? List.of() : key.live(now);
            if (live.isEmpty() && request.mode() == LeaseMode.SHARED && key != null && key.writerWaits(now)) {
                return AcquireResult.Busy.unknown(); // the waiting writer goes first, though the readers have left
            }
            if (live.isEmpty()) {
                key = new Key(request.mode(), request.permits());
                keys.put(request.key(), key);
                return grant(key, request, now);
            }
            StoreLimits.requirePermitAgreement(request, key.mode, key.permits);
            boolean sameKind = key.mode == request.mode() && request.mode() != LeaseMode.EXCLUSIVE;
            boolean roomLeft = request.mode() == LeaseMode.SHARED ? !key.writerWaits(now) : live.size() < key.permits;
            if (sameKind && roomLeft) {
                return grant(key, request, now);
            }
            Duration remaining = Duration.between(now, freesAt(key, live));
            if (request.mode() == LeaseMode.EXCLUSIVE && request.waiting() && key.mode == LeaseMode.SHARED) {
                key.exclusiveWaitingUntil = now.plus(StoreLimits.EXCLUSIVE_PRECEDENCE);
                // ask again before the precedence lapses, however long the shared leases still run
                Duration renewPrecedence = StoreLimits.EXCLUSIVE_PRECEDENCE.dividedBy(2);
                remaining = remaining.compareTo(renewPrecedence) < 0 ? remaining : renewPrecedence;
            }
            return AcquireResult.Busy.forAtMost(remaining);
        } finally {
            lock.unlock();
        }
    }

    private AcquireResult.Granted grant(Key key, AcquireRequest request, Instant now) {
        Holder holder =
                new Holder(request.ownerToken(), request.holder(), ++lastToken, now, now.plus(request.leaseTime()));
        key.holders.add(holder);
        return new AcquireResult.Granted(holder.token(), holder.acquiredAt(), holder.expiresAt());
    }

    /** When the key can next be granted to somebody: the earliest end of a permit, else the end of the last lease. */
    private static Instant freesAt(Key key, List<Holder> live) {
        Comparator<Holder> byExpiry = Comparator.comparing(Holder::expiresAt);
        Optional<Holder> next = key.mode == LeaseMode.PERMITS
                ? live.stream().min(byExpiry)
                : live.stream().max(byExpiry);
        return next.orElseThrow().expiresAt();
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
    public Map<RenewRequest, Instant> renew(Collection<RenewRequest> requests) {
        Map<RenewRequest, Instant> renewed = new HashMap<>();
        lock.lock();
        try {
            Instant now = clock.instant();
            for (RenewRequest request : requests) {
                Key key = keys.get(request.key());
                Optional<Holder> owned = key == null ? Optional.empty() : key.owned(request.ownerToken());
                if (owned.isPresent() && owned.get().liveAt(now)) {
                    Holder holder = owned.get();
                    Instant floor = holder.acquiredAt().plus(request.minHoldTime());
                    Instant expiresAt = now.plus(request.leaseTime());
                    Holder extended = holder.expiringAt(expiresAt.isBefore(floor) ? floor : expiresAt);
                    key.replace(holder, extended);
                    renewed.put(request, extended.expiresAt());
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
            Key key = keys.get(to.key());
            Optional<Holder> owned = key == null || key.mode != LeaseMode.EXCLUSIVE
                    ? Optional.empty()
                    : key.owned(request.fromOwnerToken());
            if (owned.isEmpty() || !owned.get().liveAt(now)) {
                return Optional.empty();
            }
            Holder next = new Holder(to.ownerToken(), to.holder(), ++lastToken, now, now.plus(to.leaseTime()));
            key.replace(owned.get(), next);
            // This store wakes every subscriber on every release, so it never needs to note who waits.
            return Optional.of(
                    new HandOver(new AcquireResult.Granted(next.token(), next.acquiredAt(), next.expiresAt()), false));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean release(ReleaseRequest request) {
        boolean removed;
        lock.lock();
        try {
            Instant now = clock.instant();
            Key key = keys.get(request.key());
            Optional<Holder> owned = key == null ? Optional.empty() : key.owned(request.ownerToken());
            if (owned.isEmpty()) {
                return false;
            }
            Holder holder = owned.get();
            removed = holder.liveAt(now);
            if (!request.keepsMinimumHold() || !removed) {
                key.holders.remove(holder);
            } else {
                Instant keepUntil = holder.acquiredAt().plus(request.minHoldTime());
                // A fresh owner token: the released lease can never be renewed again.
                key.replace(
                        holder,
                        new Holder(
                                "released:" + holder.token(),
                                holder.holder(),
                                holder.token(),
                                holder.acquiredAt(),
                                keepUntil.isBefore(now) ? now : keepUntil));
            }
            if (key.live(now).isEmpty() && !key.writerWaits(now)) {
                keys.remove(request.key());
            }
        } finally {
            lock.unlock();
        }
        wakeSubscribers(request.key());
        return removed;
    }

    @Override
    public boolean forceRelease(String key) {
        boolean removed;
        lock.lock();
        try {
            Key removedKey = keys.remove(key);
            removed = removedKey != null && !removedKey.live(clock.instant()).isEmpty();
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

    /**
     * The live lease on {@code key}; of several (shared leases, permits), the latest grant, with the end of the last
     * lease to run out as its expiry: until then the key is not free for everybody.
     */
    @Override
    public Optional<LeaseInfo> inspect(String key) {
        lock.lock();
        try {
            Key entry = keys.get(key);
            List<Holder> live = entry == null ? List.of() : entry.live(clock.instant());
            return live.stream()
                    .max(Comparator.comparingLong(Holder::token))
                    .map(latest -> new LeaseInfo(
                            key,
                            latest.token(),
                            latest.holder(),
                            latest.acquiredAt(),
                            live.stream()
                                    .map(Holder::expiresAt)
                                    .max(Comparator.naturalOrder())
                                    .orElseThrow(),
                            entry.mode,
                            entry.permits,
                            live.size()));
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
