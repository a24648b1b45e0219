package io.fencepost.lock.memory;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.HandOver;
import io.fencepost.lock.spi.HandOverRequest;
import io.fencepost.lock.spi.LeaseHandOver;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.LockListener;
import io.fencepost.lock.spi.LockQueue;
import io.fencepost.lock.spi.MultiAcquireRequest;
import io.fencepost.lock.spi.MultiAcquireResult;
import io.fencepost.lock.spi.MultiKeyAcquire;
import io.fencepost.lock.spi.Registration;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.RenewRequest;
import io.fencepost.lock.spi.StoreLimits;
import io.fencepost.lock.spi.StoreSweeper;
import io.fencepost.lock.spi.WaiterRelay;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A {@link LeaseStore} in this JVM's memory, for users' unit tests and examples. It honours the whole store
 * contract, shared leases, permits, hand-over, waiter registrations (so fair mode) and sets of keys included, with its
 * {@link Clock} as the store clock (inject {@link MutableClock} to move time by hand), and waiting in turn in the
 * store's own queue ({@link LockQueue}), as on PostgreSQL. It gives no protection across processes.
 *
 * <p>As on PostgreSQL, a manager over it sweeps what ended leases and lapsed registrations leave behind
 * ({@link StoreSweeper}), so that keys used once do not accumulate.
 *
 * <p>As on PostgreSQL, a release of an exclusive lease that live registrations wait for hands the lease to the oldest
 * of them in the same step; an acquire of an expired key does not (the registered waiters' own attempts take it, in
 * turn in fair mode). The waiter is told on a thread of the store's own, never under the store's lock.
 */
public final class InMemoryLeaseStore
        implements LeaseStore, LeaseHandOver, WaiterRelay, LockQueue, MultiKeyAcquire, StoreSweeper {

    /** How often a manager over this store sweeps it, as the PostgreSQL store does by default. */
    static final Duration SWEEP_INTERVAL = Duration.ofMinutes(1);

    /** The most keys, and registrations, one sweep removes, so that it holds the store's lock only briefly. */
    static final int SWEEP_BATCH = 1000;

    private final Clock clock;

    private final ReentrantLock lock = new ReentrantLock();

    private final Map<String, Key> keys = new HashMap<>();

    private final Map<String, List<Runnable>> subscribers = new ConcurrentHashMap<>();

    private final Registrations registrations = new Registrations();

    /** Waiting in turn for a key: a release of the lease taken at the head wakes the next waiter in the store. */
    private final KeyQueues queues = new KeyQueues(this::release);

    /** Who listens for hand-overs, by registration id. */
    private final Map<String, List<HandOverListener>> handOverListeners = new ConcurrentHashMap<>();

    /** Tells waiters of hand-overs one after the other, outside the lock; its one thread ends when idle. */
    private final Executor messages =
            new ThreadPoolExecutor(0, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread thread = new Thread(r, "fencepost-memory-hand-over");
                thread.setDaemon(true);
                return thread;
            });

    /**
     * Fencing tokens and the places of registrations come from this one counter, as from one sequence in PostgreSQL.
     */
    private long lastToken;

    /** The fencing token of every grant, by key, oldest first: what {@link #grantHistory} answers. */
    private final Map<String, List<Long>> history = new HashMap<>();

    /** A store on the system clock. */
    public InMemoryLeaseStore() {
        this(Clock.systemUTC());
    }

    /** A store on the given clock. */
    public InMemoryLeaseStore(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    private record HandOverListener(String ownerToken, Consumer<AcquireResult.Granted> handedOver) {}

    /** A lease handed to a registration, to be told to its waiter once the lock is let go. */
    private record Delivery(String registrationId, String ownerToken, AcquireResult.Granted granted) {}

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

    /**
     * Grants every key of the set under the store's lock, or none: a key with a live lease of any kind makes the set
     * busy. Tokens are drawn in key order, as PostgreSQL draws them.
     */
    @Override
    public MultiAcquireResult acquireAll(MultiAcquireRequest request) {
        lock.lock();
        try {
            Instant now = clock.instant();
            for (AcquireRequest one : request.requests()) {
                Key key = keys.get(one.key());
                List<Holder> live = key == null ? List.of() : key.live(now);
                if (!live.isEmpty()) {
                    return MultiAcquireResult.Busy.held(one.key(), Duration.between(now, freesAt(key, live)));
                }
            }
            Map<String, AcquireResult.Granted> byKey = new HashMap<>();
            request.requests().stream()
                    .sorted(Comparator.comparing(AcquireRequest::key))
                    .forEach(one -> {
                        Key key = new Key(LeaseMode.EXCLUSIVE, 1);
                        keys.put(one.key(), key);
                        byKey.put(one.key(), grant(key, one, now));
                    });
            return new MultiAcquireResult.Granted(
                    request.requests().stream().map(one -> byKey.get(one.key())).toList());
        } finally {
            lock.unlock();
        }
    }

    private AcquireResult.Granted grant(Key key, AcquireRequest request, Instant now) {
        Holder holder =
                new Holder(request.ownerToken(), request.holder(), ++lastToken, now, now.plus(request.leaseTime()));
        key.holders.add(holder);
        recordGrant(request.key(), holder);
        return new AcquireResult.Granted(holder.token(), holder.acquiredAt(), holder.expiresAt());
    }

    private void recordGrant(String key, Holder holder) {
        history.computeIfAbsent(key, k -> new ArrayList<>()).add(holder.token());
    }

    /**
     * The fencing tokens of every grant of {@code key} this store has made, oldest first, held or not any more: for
     * tests that check that a key was never held, even for a moment.
     */
    public List<Long> grantHistory(String key) {
        lock.lock();
        try {
            return List.copyOf(history.getOrDefault(key, List.of()));
        } finally {
            lock.unlock();
        }
    }

    /** Each release on its own, as {@link #release} does it: a set's leases are ordinary leases. */
    @Override
    public List<Boolean> releaseAll(List<ReleaseRequest> requests) {
        return requests.stream().map(this::release).toList();
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
    public Optional<Place> enter(String key, Duration timeout) {
        return queues.enter(key, timeout);
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
            recordGrant(to.key(), next);
            // The waiter's registration, if it made one, must not be handed the lease again by a later release.
            registrations.removeOwner(to.key(), to.ownerToken());
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
        Delivery delivery = null;
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
            Optional<Registrations.Waiter> next = key.mode == LeaseMode.EXCLUSIVE && !request.keepsMinimumHold()
                    ? registrations.takeOldest(request.key(), request.ownerToken(), now)
                    : Optional.empty();
            if (next.isPresent()) {
                delivery = handTo(request.key(), key, holder, next.get(), now);
            } else if (!request.keepsMinimumHold() || !removed) {
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
        if (delivery != null) {
            deliver(delivery);
        }
        wakeSubscribers(request.key());
        return removed;
    }

    /**
     * The released lease {@code released} becomes {@code waiter}'s, as if it had acquired the key right now: its owner
     * token and holder, a new fencing token, a fresh lease of its lease time. The key is never free in between.
     */
    private Delivery handTo(String name, Key key, Holder released, Registrations.Waiter waiter, Instant now) {
        Holder next = new Holder(waiter.ownerToken(), waiter.holder(), ++lastToken, now, now.plus(waiter.leaseTime()));
        key.replace(released, next);
        recordGrant(name, next);
        return new Delivery(
                waiter.id(),
                waiter.ownerToken(),
                new AcquireResult.Granted(next.token(), next.acquiredAt(), next.expiresAt()));
    }

    /** Tells the listeners of the registration, on the store's own thread, never under the lock. */
    private void deliver(Delivery delivery) {
        messages.execute(() -> {
            for (HandOverListener listener : handOverListeners.getOrDefault(delivery.registrationId(), List.of())) {
                if (listener.ownerToken().equals(delivery.ownerToken())) {
                    listener.handedOver().accept(delivery.granted());
                }
            }
        });
    }

    /**
     * Grants a free key (in turn: only when no older live registration waits for it), returns a key already handed to
     * the registration as granted, and otherwise registers the waiter, or refreshes its registration, behind an
     * exclusive lease. A grant ends the registration.
     */
    @Override
    public AcquireResult acquireOrRegister(AcquireRequest request, Registration registration) {
        if (request.mode() != LeaseMode.EXCLUSIVE || !registration.key().equals(request.key())) {
            throw new IllegalArgumentException(
                    "only a waiting exclusive request registers, for its own key: " + request + ", " + registration);
        }
        String name = request.key();
        lock.lock();
        try {
            Instant now = clock.instant();
            registrations.clearLapsed(name, now);
            Key key = keys.get(name);
            Optional<Holder> handed = key == null || key.mode != LeaseMode.EXCLUSIVE
                    ? Optional.empty()
                    : key.owned(request.ownerToken()).filter(h -> h.liveAt(now));
            if (handed.isPresent()) {
                registrations.remove(name, registration.id());
                Holder ours = handed.get();
                return new AcquireResult.Granted(ours.token(), ours.acquiredAt(), ours.expiresAt());
            }
            boolean behindOlder = registration.inTurn() && registrations.olderWaits(name, registration.id(), now);
            AcquireResult result = behindOlder ? busy(key, now) : acquire(request);
            if (result instanceof AcquireResult.Granted) {
                registrations.remove(name, registration.id());
                return result;
            }
            Key busyKey = keys.get(name);
            // Behind shared leases or permits the waiter does not register: their releases hand nothing over.
            if (behindOlder || busyKey == null || busyKey.mode == LeaseMode.EXCLUSIVE) {
                long place = registrations.find(name, registration.id()).isPresent() ? 0 : ++lastToken;
                registrations.registerOrRefresh(request, registration, now, place);
            }
            return result;
        } finally {
            lock.unlock();
        }
    }

    /** Busy for as long as the key's live leases run, if it has any. */
    private static AcquireResult busy(Key key, Instant now) {
        List<Holder> live = key == null ? List.of() : key.live(now);
        return live.isEmpty()
                ? AcquireResult.Busy.unknown()
                : AcquireResult.Busy.forAtMost(Duration.between(now, freesAt(key, live)));
    }

    @Override
    public Duration sweepInterval() {
        return SWEEP_INTERVAL;
    }

    /**
     * Removes keys whose leases all ended (a minimum hold keeps a lease live until it ends), unless a waiting writer
     * still holds readers back or a live registration waits for the key, and registrations that lapsed; at most
     * {@value #SWEEP_BATCH} of each.
     */
    @Override
    public boolean sweep(LockListener listener) {
        int keysRemoved = 0;
        int registrationsRemoved;
        lock.lock();
        try {
            Instant now = clock.instant();
            Iterator<Map.Entry<String, Key>> entries = keys.entrySet().iterator();
            while (entries.hasNext() && keysRemoved < SWEEP_BATCH) {
                Map.Entry<String, Key> entry = entries.next();
                Key key = entry.getValue();
                if (key.live(now).isEmpty() && !key.writerWaits(now) && registrations.live(entry.getKey(), now) == 0) {
                    entries.remove();
                    keysRemoved++;
                }
            }
            registrationsRemoved = registrations.sweepLapsed(now, SWEEP_BATCH);
        } finally {
            lock.unlock();
        }
        if (keysRemoved > 0) {
            listener.swept(LEASES, keysRemoved);
        }
        if (registrationsRemoved > 0) {
            listener.swept(REGISTRATIONS, registrationsRemoved);
        }
        return keysRemoved >= SWEEP_BATCH || registrationsRemoved >= SWEEP_BATCH;
    }

    @Override
    public Subscription onHandOver(
            Registration registration, String ownerToken, Consumer<AcquireResult.Granted> handedOver) {
        HandOverListener listener = new HandOverListener(Objects.requireNonNull(ownerToken, "ownerToken"), handedOver);
        handOverListeners
                .computeIfAbsent(registration.id(), id -> new CopyOnWriteArrayList<>())
                .add(listener);
        return new Subscription() {
            @Override
            public boolean delivers() {
                return true; // every hand-over of this store is told to its registration's listeners
            }

            @Override
            public void close() {
                handOverListeners.computeIfPresent(registration.id(), (id, list) -> {
                    list.remove(listener);
                    return list.isEmpty() ? null : list;
                });
            }
        };
    }

    @Override
    public boolean withdraw(Registration registration, String ownerToken) {
        lock.lock();
        try {
            registrations.remove(registration.key(), registration.id());
            Key key = keys.get(registration.key());
            return key != null
                    && key.mode == LeaseMode.EXCLUSIVE
                    && key.owned(ownerToken).isPresent();
        } finally {
            lock.unlock();
        }
    }

    /** How many live waiter registrations wait for {@code key}: for tests that wait until their waiters queued. */
    public int registeredWaiters(String key) {
        lock.lock();
        try {
            return registrations.live(key, clock.instant());
        } finally {
            lock.unlock();
        }
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
