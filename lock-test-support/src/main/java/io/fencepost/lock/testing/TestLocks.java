package io.fencepost.lock.testing;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.memory.MutableClock;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.LockListener;
import io.fencepost.lock.spi.StoreLimits;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Locks a test controls: a lock manager on a store (in memory unless told otherwise) through which the test makes a
 * holder's lease run out while the holder goes on, takes the store down and brings it back, force-releases a key,
 * sees every grant, and runs the same work as a second instance of the application.
 *
 * <p>The managers are Fencepost's own engine ({@link DefaultLockManager}), so waiting, reentrancy, renewal and loss
 * detection behave as in production; only the store is under the test's hand. Everything happens on the test's
 * thread, at the moment the test asks: no sleeps, no timing.
 */
public final class TestLocks implements AutoCloseable {

    /** The holder name of {@link #manager()} unless the builder sets another. */
    public static final String DEFAULT_HOLDER = "test";

    private final ControlledStore store;

    /** Null when the store is not the in-memory one this began with. */
    private volatile MutableClock clock;

    private final GrantLog grants = new GrantLog();

    private final DefaultLockManager manager;

    private final String holderName;

    private final Map<String, DefaultLockManager> instances = new ConcurrentHashMap<>();

    private TestLocks(LeaseStore store, MutableClock clock, String holderName, List<LockListener> listeners) {
        this.store = new ControlledStore(store);
        this.clock = clock;
        this.holderName = holderName;
        this.manager = build(holderName, listeners);
    }

    /** Test locks on a fresh in-memory store. */
    public static TestLocks inMemory() {
        return builder().build();
    }

    /** A builder, for a store other than the in-memory one, or another holder name. */
    public static Builder builder() {
        return new Builder();
    }

    private DefaultLockManager build(String holder, List<LockListener> listeners) {
        return DefaultLockManager.builder(store.store())
                .holderName(holder)
                .listener(grants.listenerFor(holder, listeners))
                .build();
    }

    /** The lock manager of the application under test: hand it to the code you test. */
    public DefaultLockManager manager() {
        return manager;
    }

    /**
     * Another instance of the application on the same store (another lock manager, as another process would have):
     * it contends with {@link #manager()} and with every other instance, also from the same thread. One manager per
     * holder name; the name of {@link #manager()} gives {@link #manager()}.
     */
    public DefaultLockManager instance(String holderName) {
        if (StoreLimits.fitHolder(holderName).equals(this.holderName)) {
            return manager;
        }
        return instances.computeIfAbsent(StoreLimits.fitHolder(holderName), holder -> build(holder, List.of()));
    }

    /**
     * Lets the live lease on {@code key} run out now, as it does when its holder pauses past it: the store drops it
     * without telling the holder, which goes on believing it holds the key until a renewal or its local deadline
     * says otherwise. Another caller can take the key at once and gets a higher fencing token, so the test can check
     * that the old holder's late write is refused or its transaction rolled back.
     *
     * @throws IllegalStateException when the key has no live lease
     */
    public void expire(String key) {
        StoreLimits.requireValidKey(key);
        if (!store.delegate().forceRelease(key)) {
            throw new IllegalStateException("no live lease on '" + key + "' to expire: take the key first, or check"
                    + " the key (grants() lists what was granted)");
        }
    }

    /**
     * Moves the in-memory store's clock forward: every lease whose end it passes runs out, while its holder goes on
     * (renewal runs on the real clock, so it cannot save a lease the store's clock has passed).
     *
     * @throws IllegalStateException when the store is not the in-memory one
     */
    public void advanceClock(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("the clock only moves forward, was " + duration);
        }
        MutableClock current = clock;
        if (current == null) {
            throw new IllegalStateException("advanceClock works on the in-memory store only; on this store, use"
                    + " expire(key) to let a lease run out");
        }
        current.advance(duration);
    }

    /**
     * Makes the store unreachable: from now on every call fails with {@link io.fencepost.lock.LockStoreException},
     * so acquisition fails closed and renewal fails (held leases are lost at their safe deadlines).
     */
    public void storeDown() {
        store.down(true);
    }

    /** Makes the store reachable again. */
    public void storeUp() {
        store.down(false);
    }

    /**
     * Removes whatever lease {@code key} has, as an operator does: holders in {@link #manager()} are told at once
     * that they lost it, holders in other instances find out at their next renewal.
     *
     * @return true when a live lease was removed
     */
    public boolean forceRelease(String key) {
        return manager.forceRelease(key);
    }

    /** The store's view of {@code key}: who holds it, with which token, until when. Never the owner token. */
    public Optional<LeaseInfo> inspect(String key) {
        StoreLimits.requireValidKey(key);
        return store.delegate().inspect(key);
    }

    /** Every grant since the start (or the last {@link #reset()}), in the order they were made. */
    public List<Grant> grants() {
        return grants.grants();
    }

    /** The grants of {@code key}, in the order they were made. */
    public List<Grant> grants(String key) {
        return grants.grants().stream().filter(grant -> grant.key().equals(key)).toList();
    }

    /**
     * Starts over for the next test on the same managers: the store is up again, leases still held are removed
     * (their holders are told), the other instances are closed and the grants forgotten; an in-memory store is
     * replaced by an empty one with a fresh clock.
     */
    public void reset() {
        store.down(false);
        closeInstances();
        manager.heldLeases().forEach(held -> manager.forceRelease(held.key()));
        if (clock != null) {
            MutableClock fresh = new MutableClock(Instant.now());
            store.replace(new InMemoryLeaseStore(fresh));
            clock = fresh;
        }
        grants.clear();
    }

    private void closeInstances() {
        instances.values().forEach(instance -> {
            instance.heldLeases().forEach(held -> instance.forceRelease(held.key()));
            instance.close();
        });
        instances.clear();
    }

    /** Stops every manager's renewal; leases still held then run out on their own. The store is left open. */
    @Override
    public void close() {
        closeInstances();
        manager.close();
    }

    @Override
    public String toString() {
        return "TestLocks[store=" + store.store() + ", holder=" + holderName + "]";
    }

    /** Builds {@link TestLocks}. */
    public static final class Builder {

        private LeaseStore store;

        private String holderName = DEFAULT_HOLDER;

        private final List<LockListener> listeners = new ArrayList<>();

        private Builder() {}

        /**
         * The store to run on, such as a PostgreSQL store for a test that needs the leases in the database; default a
         * fresh in-memory store. The caller closes it after {@link TestLocks#close()}.
         */
        public Builder store(LeaseStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /** The holder name of {@link TestLocks#manager()}; default {@value TestLocks#DEFAULT_HOLDER}. */
        public Builder holderName(String holderName) {
            this.holderName = StoreLimits.fitHolder(holderName);
            return this;
        }

        /**
         * Also told what {@link TestLocks#manager()} does (not the other instances), such as the application's metrics;
         * each call adds one.
         */
        public Builder listener(LockListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** The test locks, with their manager. */
        public TestLocks build() {
            if (store != null) {
                return new TestLocks(store, null, holderName, listeners);
            }
            MutableClock clock = new MutableClock(Instant.now());
            return new TestLocks(new InMemoryLeaseStore(clock), clock, holderName, listeners);
        }
    }
}
