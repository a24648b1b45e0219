package io.fencepost.lock.integration;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * Spring Integration's lock registry over a Fencepost {@link LockManager}: {@link #obtain} gives one
 * {@link DistributedLock} per key, whose holds are Fencepost leases.
 *
 * <ul>
 *   <li>Locks behave as {@link java.util.concurrent.locks.Lock} says: reentrant for the holding thread, and
 *       {@code unlock} by another thread is an {@link IllegalMonitorStateException}. Threads of this process wait for
 *       each other in the lock object; processes wait for each other in the store.
 *   <li>Each hold is a lease of {@link #getLeaseTime() the lease time} (or the TTL passed to {@link
 *       DistributedLock#lock(Duration)}), renewed in the background while the holding thread lives, up to {@link
 *       #setMaxHoldTime the max hold time}: no renewal scheduler is needed. {@link #renewLock} moves the end of the
 *       lease at once.
 *   <li>{@code unlock} after the lease was lost (expired or taken over) throws {@link
 *       java.util.ConcurrentModificationException}, as Spring Integration's own registries do.
 *   <li>The holding thread reads its lease, and with it the fencing token, from {@link #currentLease(Object)}.
 * </ul>
 */
public final class FencepostLockRegistry
        implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {

    /** The lease time when none is given. */
    public static final Duration DEFAULT_LEASE_TIME = LockOptions.DEFAULT_LEASE_TIME;

    /** The name for metrics when none is given. */
    public static final String DEFAULT_NAME = "lock-registry";

    private final LockManager locks;

    private final Duration leaseTime;

    private final Map<String, FencepostLock> obtained = new ConcurrentHashMap<>();

    private volatile Duration maxHoldTime = LockOptions.MAX_DURATION;

    private volatile String name = DEFAULT_NAME;

    /** A registry whose locks are leases of {@code locks}, of {@link #DEFAULT_LEASE_TIME}. */
    public FencepostLockRegistry(LockManager locks) {
        this(locks, DEFAULT_LEASE_TIME);
    }

    /**
     * A registry whose locks are leases of {@code locks}, of {@code leaseTime} unless a lock call gives its own: how
     * long the key stays locked after its holder vanished without unlocking.
     */
    public FencepostLockRegistry(LockManager locks, Duration leaseTime) {
        this.locks = Objects.requireNonNull(locks, "locks");
        LockOptions.of(leaseTime); // validates it, naming the problem
        this.leaseTime = leaseTime;
    }

    /**
     * Bounds how long renewal keeps a hold alive; by default it renews as long as the holding thread lives, since a
     * {@code Lock} is held until unlocked (a leader holds its lock for the life of the process).
     */
    public void setMaxHoldTime(Duration maxHoldTime) {
        LockOptions.builder().maxHoldTime(maxHoldTime).build();
        this.maxHoldTime = maxHoldTime;
    }

    /** The low-cardinality name of this registry's leases in metrics and logs (keys may be many). */
    public void setName(String name) {
        LockOptions.builder().name(name).build();
        this.name = name;
    }

    /** The lease time of holds that give none. */
    public Duration getLeaseTime() {
        return leaseTime;
    }

    /**
     * The lock for {@code lockKey}: the same object for the same key until {@link #expireUnusedOlderThan} drops it.
     *
     * @throws IllegalArgumentException when the key is not a string, is blank or is longer than 255 characters
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        return obtained.computeIfAbsent(keyOf(lockKey), key -> new FencepostLock(key, this));
    }

    /** Drops the locks not held and not used for {@code age} milliseconds, as other registries do. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.nanoTime();
        long ageNanos = Duration.ofMillis(age).toNanos();
        obtained.values().removeIf(lock -> lock.unusedFor(now) > ageNanos);
    }

    /**
     * Moves the end of the current thread's hold on {@code lockKey} to its lease time from now (the store's clock).
     *
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     * @throws IllegalStateException when the lease was lost, so there is nothing to renew
     */
    @Override
    public void renewLock(Object lockKey) {
        heldLock(lockKey).renew(null);
    }

    /** Like {@link #renewLock(Object)}, with {@code leaseTime} as the lease's new time to live. */
    @Override
    public void renewLock(Object lockKey, Duration leaseTime) {
        LockOptions.of(leaseTime);
        heldLock(lockKey).renew(leaseTime);
    }

    /**
     * The lease by which the current thread holds this registry's lock on {@code lockKey}: read its {@link
     * Lease#fencingToken()} and hand it to the resource you write to.
     */
    public Optional<Lease> currentLease(Object lockKey) {
        FencepostLock lock = obtained.get(keyOf(lockKey));
        return lock == null ? Optional.empty() : lock.currentLease();
    }

    LockManager locks() {
        return locks;
    }

    /** The options of one hold. */
    LockOptions options(Duration leaseTime, Duration waitTime) {
        return LockOptions.builder()
                .leaseTime(leaseTime == null ? this.leaseTime : leaseTime)
                .waitTime(waitTime)
                .maxHoldTime(maxHoldTime)
                .name(name)
                // The lock object keeps the holding thread's reentrant count; every store grant is a new hold.
                .reentrant(false)
                .build();
    }

    private FencepostLock heldLock(Object lockKey) {
        String key = keyOf(lockKey);
        FencepostLock lock = obtained.get(key);
        if (lock == null) {
            throw new IllegalStateException("no lock '" + key + "' was obtained from this registry: nothing to renew");
        }
        return lock;
    }

    private static String keyOf(Object lockKey) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("lock keys are strings, was "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()) + " (pass its text)");
        }
        if (key.isBlank() || key.length() > 255) {
            throw new IllegalArgumentException("lock key must be 1 to 255 characters and not blank, was '"
                    + abbreviate(key) + "' (" + key.length() + " characters)");
        }
        return key;
    }

    private static String abbreviate(String key) {
        return key.length() <= 40 ? key : key.substring(0, 40) + "...";
    }

    @Override
    public String toString() {
        return "FencepostLockRegistry[" + locks + ", leaseTime=" + leaseTime + "]";
    }
}
