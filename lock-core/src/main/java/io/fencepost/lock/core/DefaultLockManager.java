package io.fencepost.lock.core;

import io.fencepost.lock.HeldLeaseInfo;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockAdmin;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.HandOver;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.LockListener;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The lock engine over any {@link LeaseStore}: validation, waiting with backoff, in-JVM queuing per key,
 * reentrancy, renewal and lost-lease detection. Store-specific managers (such as the PostgreSQL one) wrap it.
 */
public final class DefaultLockManager implements LockManager, LockAdmin, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DefaultLockManager.class.getName());

    private final LeaseStore store;

    private final String holderName;

    private final Clock clock;

    private final LockListener listener;

    private final long minBackoffNanos;

    private final long maxBackoffNanos;

    private final long pushFallbackNanos;

    private final ConcurrentHashMap<String, KeyGate> gates = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, FairQueue> fairQueues = new ConcurrentHashMap<>();

    /** This client's identity in fair queues: its tickets are refreshed together. */
    private final String waiterId = UUID.randomUUID().toString();

    /** The grant this manager holds per key, for reentrancy and local hand-off. */
    private final ConcurrentHashMap<String, Grant> held = new ConcurrentHashMap<>();

    private final Renewer renewer;

    private DefaultLockManager(Builder builder) {
        this.store = builder.store;
        this.holderName = builder.holderName;
        this.clock = builder.clock;
        this.listener = builder.listener;
        this.minBackoffNanos = builder.minBackoff.toNanos();
        this.maxBackoffNanos = builder.maxBackoff.toNanos();
        this.pushFallbackNanos = builder.pushFallback.toNanos();
        this.renewer = new Renewer(store, this);
    }

    /** A builder for an engine over {@code store}. */
    public static Builder builder(LeaseStore store) {
        return new Builder(store);
    }

    /** The name this manager writes as the holder of its leases. */
    public String holderName() {
        return holderName;
    }

    @Override
    public Lease acquire(String key, LockOptions options) {
        long start = System.nanoTime();
        return tryAcquire(key, options)
                .orElseThrow(() -> new LockNotAcquiredException(key, Duration.ofNanos(System.nanoTime() - start)));
    }

    @Override
    public Optional<Lease> tryAcquire(String key, LockOptions options) {
        KeyValidation.requireValidKey(key);
        Objects.requireNonNull(options, "options must not be null (use LockOptions.defaults())");
        long start = System.nanoTime();

        Grant mine = held.get(key);
        if (mine != null && mine.ownerThread == Thread.currentThread()) {
            if (mine.tryReenter()) {
                return Optional.of(new LeaseHandle(this, mine));
            }
            held.remove(key, mine);
        }

        if (options.fair()) {
            return tryAcquireFair(key, options, start);
        }
        long deadline = start + options.waitTime().toNanos();
        boolean waiting = deadline - start > 0;
        KeyGate gate = enterGate(key);
        // A waiter may receive a local holder's lease directly on its release (one statement, not two).
        KeyGate.Waiter me = gate.join(waiting && store.supportsHandOver() ? options.leaseTime() : null);
        try {
            if (!gate.awaitTurn(me, deadline - System.nanoTime())) {
                // The wait ran out in line; a lease may still have been handed to us just now.
                Optional<Lease> handed = handedOver(key, options, gate, me, start);
                return handed.isPresent() ? handed : notAcquired(key, options, start);
            }
            // Our turn, or a lease handed to us while in line: the wait loop takes that first.
            return attemptUntil(key, options, gate, me, start, deadline);
        } catch (InterruptedException e) {
            return interrupted(key, options, start);
        } finally {
            if (gate.leave(me).isPresent()) {
                // Handed to us as we gave up (interrupted, or failed): nobody will use it, so free the key at once.
                releaseQuietly(key, me.ownerToken);
            }
            leaveGate(key, gate);
        }
    }

    private Optional<Lease> attemptUntil(
            String key, LockOptions options, KeyGate gate, KeyGate.Waiter me, long start, long deadline)
            throws InterruptedException {
        boolean waiting = deadline - start > 0;
        // Subscribe before the first attempt: a release that happens after our attempt then always wakes us.
        LeaseStore.Subscription subscription =
                waiting ? store.subscribe(key, gate::wake) : LeaseStore.Subscription.NONE;
        try {
            return waitLoop(
                    key,
                    options,
                    start,
                    deadline,
                    subscription,
                    () -> {
                        Grant local = held.get(key);
                        // Held by another thread of this manager: its release or loss wakes us, no store call.
                        if (local != null && local.isHeld()) {
                            return local.safeDeadlineNanos() - System.nanoTime();
                        }
                        // Just freed for waiters in other processes: give them the first try.
                        long courtesy = waiting ? gate.courtesyLeftNanos() : 0;
                        return courtesy > 0 ? courtesy : CALL_STORE;
                    },
                    () -> handedOver(key, options, gate, me, start),
                    owner -> store.tryAcquire(key, owner, holderName, options.leaseTime(), waiting),
                    gate::awaitWakeUp);
        } finally {
            subscription.close();
        }
    }

    /** The lease a local holder handed to this waiter on release, if it did; it is then the caller's. */
    private Optional<Lease> handedOver(String key, LockOptions options, KeyGate gate, KeyGate.Waiter me, long start) {
        return gate.take(me).map(handed -> granted(key, me.ownerToken, options, handed.granted(), me.sentNanos, start));
    }

    private void releaseQuietly(String key, String ownerToken) {
        try {
            store.release(key, ownerToken, Duration.ZERO);
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "could not release lock ''{0}'' handed to a waiter that gave up: {1}",
                    key,
                    e.toString());
        }
    }

    /** Returned by a wait loop's local check when the store must be asked. */
    private static final long CALL_STORE = Long.MIN_VALUE;

    /** Waits for a wake-up or the given time. */
    @FunctionalInterface
    private interface Pause {
        void await(long nanos) throws InterruptedException;
    }

    /**
     * Attempts until granted or the deadline passes. Each round asks {@code localBusy} first: it either says
     * how long the key is known to stay busy without asking the store, or {@link #CALL_STORE}. Between rounds
     * it pauses until a wake-up, the holder's known expiry, or the poll interval: the push fallback while the
     * store delivers wake-ups, jittered backoff otherwise.
     */
    private Optional<Lease> waitLoop(
            String key,
            LockOptions options,
            long start,
            long deadline,
            LeaseStore.Subscription subscription,
            java.util.function.LongSupplier localBusy,
            java.util.function.Supplier<Optional<Lease>> handedOver,
            java.util.function.Function<String, AcquireResult> attempt,
            Pause pause)
            throws InterruptedException {
        LockStoreException lastFailure = null;
        for (int round = 0; ; round++) {
            Optional<Lease> handed = handedOver.get();
            if (handed.isPresent()) {
                return handed;
            }
            long knownBusyNanos = localBusy.getAsLong();
            if (knownBusyNanos == CALL_STORE) {
                String ownerToken = UUID.randomUUID().toString();
                long sent = System.nanoTime();
                AcquireResult result;
                try {
                    result = attempt.apply(ownerToken);
                    lastFailure = null;
                } catch (RuntimeException e) {
                    // A store failure while waiting (a dropped pooled connection, a restart) is retried until the
                    // wait ends; the acquisition still fails closed, with this failure, if the store stays down.
                    lastFailure = storeFailure(key, e);
                    if (deadline - System.nanoTime() <= 0) {
                        throw reported(key, options, start, lastFailure);
                    }
                    result = AcquireResult.Busy.unknown();
                }
                if (result instanceof AcquireResult.Granted granted) {
                    return Optional.of(granted(key, ownerToken, options, granted, sent, start));
                }
                knownBusyNanos = ((AcquireResult.Busy) result)
                        .remaining()
                        .map(d -> d.toNanos() + TimeUnit.MILLISECONDS.toNanos(1))
                        .orElse(Long.MAX_VALUE);
            }
            long remainingWait = deadline - System.nanoTime();
            if (remainingWait <= 0) {
                handed = handedOver.get();
                if (handed.isPresent()) {
                    return handed;
                }
                if (lastFailure != null) {
                    throw reported(key, options, start, lastFailure);
                }
                return notAcquired(key, options, start);
            }
            // A wake-up is only promised when the store could tell the key's state (it then noted that we wait);
            // after an attempt that could not (another grant committed after our statement's snapshot), poll.
            // Fair waiters always poll: a release wakes them, but whether they are the queue's head anywhere is
            // decided by other clients' grants, which send nothing.
            boolean promised = !options.fair() && subscription.delivers() && knownBusyNanos != Long.MAX_VALUE;
            long poll = promised ? pushFallbackNanos : backoff(round);
            pause.await(Math.min(Math.min(poll, Math.max(0, knownBusyNanos)), remainingWait));
        }
    }

    /**
     * Fair mode: every waiting thread takes a ticket in the store's queue on arrival; locally only the lowest
     * ticket talks to the store, and the store grants only to the lowest live ticket of all clients. A caller
     * that does not wait takes no ticket and wins only when nobody is queued.
     */
    private Optional<Lease> tryAcquireFair(String key, LockOptions options, long start) {
        if (!store.supportsFairness()) {
            throw new IllegalArgumentException("fair locking was asked for lock '" + key + "', but "
                    + store.getClass().getSimpleName() + " does not support it: drop fair, or use a store that"
                    + " supports it (PostgreSQL and in-memory do)");
        }
        long deadline = start + options.waitTime().toNanos();
        boolean waiting = deadline - start > 0;
        long ticket = waiting
                ? storeCall(key, options, start, () -> store.enqueue(key, waiterId, ticketTtl()))
                : Long.MAX_VALUE;
        FairQueue queue = fairQueues.compute(key, (k, q) -> {
            FairQueue fq = q == null ? new FairQueue() : q;
            fq.users++;
            return fq;
        });
        queue.add(ticket);
        LeaseStore.Subscription subscription =
                waiting ? store.subscribe(key, queue::wake) : LeaseStore.Subscription.NONE;
        Optional<Lease> lease = Optional.empty();
        try {
            lease = waitLoop(
                    key,
                    options,
                    start,
                    deadline,
                    subscription,
                    () -> (waiting ? queue.isHead(ticket) : queue.isEmpty()) ? CALL_STORE : Long.MAX_VALUE,
                    Optional::empty,
                    owner -> store.tryAcquireFair(
                            key, owner, holderName, options.leaseTime(), waiterId, ticket, ticketTtl()),
                    queue::await);
            return lease;
        } catch (InterruptedException e) {
            return interrupted(key, options, start);
        } finally {
            subscription.close();
            if (waiting) {
                queue.remove(ticket);
            }
            fairQueues.computeIfPresent(key, (k, q) -> --q.users == 0 ? null : q);
            if (lease.isEmpty() && waiting) {
                try {
                    store.dequeue(key, ticket);
                } catch (RuntimeException e) {
                    // The ticket lapses on its own; until then it delays fair waiters by at most its lifetime.
                    LOG.log(Level.WARNING, "could not leave the queue of lock ''{0}'': {1}", key, e.toString());
                }
            }
        }
    }

    /** A ticket outlives several re-checks of its waiter, which refresh it; a dead waiter's ticket then lapses. */
    private Duration ticketTtl() {
        return Duration.ofNanos(Math.max(TimeUnit.SECONDS.toNanos(10), 5 * pushFallbackNanos));
    }

    private Optional<Lease> interrupted(String key, LockOptions options, long start) {
        Thread.currentThread().interrupt();
        listener.notAcquired(options.name(), key, Duration.ofNanos(System.nanoTime() - start));
        throw new LockNotAcquiredException(key, "interrupted while waiting for lock '" + key + "'");
    }

    /** Runs one store call of an acquisition; a failure is reported and surfaces as {@link LockStoreException}. */
    private <T> T storeCall(String key, LockOptions options, long start, java.util.function.Supplier<T> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            throw reported(key, options, start, storeFailure(key, e));
        }
    }

    private static LockStoreException storeFailure(String key, RuntimeException e) {
        return e instanceof LockStoreException storeFailure
                ? storeFailure
                : new LockStoreException("could not acquire lock '" + key + "': the lock store failed: " + e, e);
    }

    private LockStoreException reported(String key, LockOptions options, long start, LockStoreException failure) {
        listener.acquireFailed(options.name(), key, Duration.ofNanos(System.nanoTime() - start), failure);
        return failure;
    }

    private Lease granted(
            String key, String ownerToken, LockOptions options, AcquireResult.Granted granted, long sent, long start) {
        Grant grant = new Grant(
                key,
                ownerToken,
                granted.fencingToken(),
                options,
                granted.acquiredAt(),
                granted.expiresAt(),
                sent,
                clock.instant());
        held.put(key, grant);
        renewer.register(grant);
        LeaseHandle handle = new LeaseHandle(this, grant);
        listener.acquired(options.name(), handle, Duration.ofNanos(System.nanoTime() - start));
        return handle;
    }

    private Optional<Lease> notAcquired(String key, LockOptions options, long start) {
        listener.notAcquired(options.name(), key, Duration.ofNanos(System.nanoTime() - start));
        return Optional.empty();
    }

    /** Exponential backoff with full jitter between {@code minBackoff} and {@code maxBackoff}. */
    private long backoff(int attempt) {
        long ceiling = minBackoffNanos << Math.min(attempt, 20);
        if (ceiling <= 0 || ceiling > maxBackoffNanos) {
            ceiling = maxBackoffNanos;
        }
        return ThreadLocalRandom.current().nextLong(Math.max(1, ceiling / 2), ceiling + 1);
    }

    private KeyGate enterGate(String key) {
        return gates.compute(key, (k, gate) -> {
            KeyGate g = gate == null ? new KeyGate() : gate;
            g.users++;
            return g;
        });
    }

    private void leaveGate(String key, KeyGate gate) {
        gates.computeIfPresent(key, (k, g) -> --g.users == 0 ? null : g);
    }

    private void wakeWaiters(String key) {
        KeyGate gate = gates.get(key);
        if (gate != null) {
            gate.wake();
        }
        FairQueue queue = fairQueues.get(key);
        if (queue != null) {
            queue.wake();
        }
    }

    /**
     * Ends one hold; the last hold releases the grant in the store, or hands it straight to the local thread
     * whose turn it is to wait for the key.
     */
    boolean releaseHold(Grant grant, boolean throwOnStoreFailure) {
        if (grant.holds.decrementAndGet() > 0) {
            return false;
        }
        boolean wasHeld = grant.markReleased();
        held.remove(grant.key, grant);
        renewer.unregister(grant);
        Duration heldFor = Duration.ofNanos(System.nanoTime() - grant.grantSentNanos);
        Duration minHoldLeft = minHoldLeft(grant, heldFor);
        KeyGate gate = wasHeld && minHoldLeft.isZero() && !grant.options.fair() ? gates.get(grant.key) : null;
        KeyGate.Waiter next = gate != null ? gate.claim() : null;
        boolean removed = false;
        try {
            if (next != null) {
                Optional<HandOver> handed = Optional.empty();
                try {
                    handed = store.handOver(grant.key, grant.ownerToken(), next.ownerToken, holderName, next.leaseTime);
                } finally {
                    gate.complete(next, handed);
                }
                removed = handed.isPresent();
                return removed;
            }
            // Even a lease we declared lost may still be ours in the store; removing it frees the key sooner.
            removed = store.release(grant.key, grant.ownerToken(), minHoldLeft);
            return removed && (wasHeld || grant.state() == Grant.State.LOST);
        } catch (RuntimeException e) {
            if (throwOnStoreFailure) {
                throw e instanceof LockStoreException
                        ? e
                        : new LockStoreException(
                                "could not release lock '" + grant.key + "': the lock store failed: " + e, e);
            }
            LOG.log(
                    Level.WARNING,
                    "could not release lock ''{0}'' (fencing token {1}); it expires at {2}: {3}",
                    grant.key,
                    grant.fencingToken,
                    grant.expiresAt(),
                    e.toString());
            return false;
        } finally {
            listener.released(grant.options.name(), new LeaseHandle(this, grant), removed, heldFor);
            wakeWaiters(grant.key);
        }
    }

    private static Duration minHoldLeft(Grant grant, Duration heldFor) {
        Duration minHold = grant.options.minHoldTime();
        return heldFor.compareTo(minHold) < 0 ? minHold : Duration.ZERO;
    }

    void renewed(Grant grant) {
        listener.renewed(grant.options.name(), new LeaseHandle(this, grant));
    }

    void renewalFailed(Grant grant, RuntimeException failure) {
        listener.renewalFailed(grant.options.name(), new LeaseHandle(this, grant), failure);
    }

    void lost(Grant grant, String reason) {
        if (grant.markLost(reason)) {
            held.remove(grant.key, grant);
            LOG.log(Level.WARNING, "lost lock ''{0}'' (fencing token {1}): {2}", grant.key, grant.fencingToken, reason);
            listener.lost(grant.options.name(), new LeaseHandle(this, grant), reason);
            grant.fireLost();
            wakeWaiters(grant.key);
        }
    }

    @Override
    public Optional<LeaseInfo> inspect(String key) {
        KeyValidation.requireValidKey(key);
        return store.inspect(key);
    }

    @Override
    public List<HeldLeaseInfo> heldLeases() {
        List<HeldLeaseInfo> leases = new ArrayList<>();
        for (Grant grant : held.values()) {
            if (grant.isHeld()) {
                leases.add(new HeldLeaseInfo(
                        grant.key,
                        grant.options.name(),
                        grant.fencingToken,
                        grant.acquiredAt(),
                        grant.expiresAt(),
                        grant.holds.get(),
                        grant.renewals,
                        grant.ownerThread.getName()));
            }
        }
        return leases;
    }

    @Override
    public boolean forceRelease(String key) {
        KeyValidation.requireValidKey(key);
        boolean removed = store.forceRelease(key);
        LOG.log(
                Level.WARNING,
                "lock ''{0}'' was force-released by an operator (a live lease was {1}removed)",
                key,
                removed ? "" : "not ");
        Grant mine = held.get(key);
        if (mine != null) {
            lost(mine, "an operator force-released it");
        }
        wakeWaiters(key);
        return removed;
    }

    /** Stops renewal; held leases then run out on their own. */
    @Override
    public void close() {
        renewer.close();
    }

    /** Builds a {@link DefaultLockManager}. */
    public static final class Builder {

        private final LeaseStore store;

        private String holderName = defaultHolderName();

        private Clock clock = Clock.systemUTC();

        private LockListener listener = LockListener.NONE;

        private Duration minBackoff = Duration.ofMillis(5);

        private Duration maxBackoff = Duration.ofMillis(100);

        private Duration pushFallback = Duration.ofSeconds(1);

        private Builder(LeaseStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /** The human-readable holder name shown by {@code inspect}; defaults to {@code user@host}. */
        public Builder holderName(String holderName) {
            if (holderName == null || holderName.isBlank()) {
                throw new IllegalArgumentException("holder name must not be blank, was '" + holderName + "'");
            }
            this.holderName = holderName.length() > 255 ? holderName.substring(0, 255) : holderName;
            return this;
        }

        /** The JVM's wall clock, used only for local diagnostics; expiry is always decided by the store. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Observes acquisitions, releases, renewals and losses. */
        public Builder listener(LockListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** Bounds of the randomized exponential backoff between attempts on a busy key. */
        public Builder retryBackoff(Duration min, Duration max) {
            if (min == null || max == null || min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
                throw new IllegalArgumentException(
                        "retry backoff must satisfy 0 < min <= max, was min=" + min + ", max=" + max);
            }
            this.minBackoff = min;
            this.maxBackoff = max;
            return this;
        }

        /**
         * While the store delivers wake-ups, how often a waiter re-checks anyway, in case a wake-up was lost;
         * default 1 second. Waiters also re-check at the holder's known expiry.
         */
        public Builder pushFallback(Duration pushFallback) {
            if (pushFallback == null || pushFallback.isNegative() || pushFallback.isZero()) {
                throw new IllegalArgumentException("push fallback must be positive, was " + pushFallback);
            }
            this.pushFallback = pushFallback;
            return this;
        }

        public DefaultLockManager build() {
            return new DefaultLockManager(this);
        }

        static String defaultHolderName() {
            String user = System.getProperty("user.name", "app");
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                host = "unknown-host";
            }
            String name = user + "@" + host;
            return name.length() > 255 ? name.substring(0, 255) : name;
        }
    }
}
