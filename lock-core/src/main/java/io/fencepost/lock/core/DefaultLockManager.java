package io.fencepost.lock.core;

import io.fencepost.lock.HeldLeaseInfo;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockAdmin;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.MultiLease;
import io.fencepost.lock.internal.LogSafe;
import io.fencepost.lock.spi.LeaseHandOver;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.LockQueue;
import io.fencepost.lock.spi.MultiKeyAcquire;
import io.fencepost.lock.spi.StoreLimits;
import io.fencepost.lock.spi.StoreSweeper;
import io.fencepost.lock.spi.WaiterRelay;
import java.lang.System.Logger.Level;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The lock engine over any {@link LeaseStore}: validation, waiting, reentrancy, renewal and lost-lease detection.
 * Store-specific managers (such as the PostgreSQL one) extend it with their store and settings.
 *
 * <p>It finds the store's optional abilities once, here: {@link LeaseHandOver} (a release hands the lease to a
 * waiting thread of this manager) and {@link WaiterRelay} (a release hands the lease to the oldest registered waiter
 * of any client; fair mode needs it) and {@link MultiKeyAcquire} (several keys in one step; sets of keys need it).
 * A {@link StoreSweeper}, of the store or given by a store's own manager, runs on a background thread of the manager.
 */
public class DefaultLockManager implements LockManager, LockAdmin, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DefaultLockManager.class.getName());

    private final LeaseStore store;

    private final String holderName;

    private final HeldLeases held = new HeldLeases();

    private final WaiterLines lines = new WaiterLines();

    private final LeaseEvents events;

    /** Renewal and the loss watchdog. */
    private final List<LeaseWorker> workers;

    private final Grants grants;

    private final LineAcquirer lineAcquirer;

    /** This manager's places in the store's queues, when the store has them. */
    private final QueuePlaces places;

    /** Null when the store does not relay releases to registered waiters, which fair mode needs. */
    private final FairAcquirer fairAcquirer;

    /** Null when nothing sweeps the store. */
    private final SweepLoop sweeps;

    private final SetAcquirer setAcquirer;

    /**
     * An engine over {@code store} with {@code settings}, for managers that bring a store of their own; the store's
     * sweeper runs if it is one ({@link StoreSweeper}).
     */
    protected DefaultLockManager(LeaseStore store, EngineSettings settings) {
        this(store, settings, store instanceof StoreSweeper ability ? ability : null);
    }

    /**
     * An engine over {@code store} with {@code settings}, whose manager configures the store's sweeping itself.
     *
     * @param sweeper what removes the store's ended rows in the background; null for nothing
     */
    protected DefaultLockManager(LeaseStore store, EngineSettings settings, StoreSweeper sweeper) {
        this.store = Objects.requireNonNull(store, "store");
        this.holderName = settings.holderName();
        this.events = new LeaseEvents(settings.listener(), held, lines);
        Renewer renewer = new Renewer(store, events);
        this.workers = List.of(renewer, new LossWatchdog(events));
        LeaseHandOver handOver = store instanceof LeaseHandOver ability ? ability : null;
        WaiterRelay relay = store instanceof WaiterRelay ability ? ability : null;
        this.places =
                new QueuePlaces(store instanceof LockQueue ability ? ability : null, settings.pushFallback(), held);
        Releases releases = new Releases(store, handOver, holderName, held, lines, workers, events, places);
        this.grants = new Grants(held, workers, releases, renewer, events);
        AcquireLoop loop = new AcquireLoop(settings, grants, events);
        RegisteredWaits registrations = RegisteredWaits.of(store, relay, grants, releases, settings.pushFallback());
        this.lineAcquirer =
                new LineAcquirer(store, holderName, lines, held, releases, grants, loop, registrations, places);
        this.fairAcquirer = relay != null ? new FairAcquirer(store, registrations, holderName, loop) : null;
        this.sweeps = sweeper != null ? new SweepLoop(sweeper, settings.listener()) : null;
        this.setAcquirer = new SetAcquirer(
                store,
                store instanceof MultiKeyAcquire ability ? ability : null,
                holderName,
                held,
                grants,
                releases,
                loop);
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
        AcquireCall call = call(key, options);
        return acquire(call).orElseThrow(() -> new LockNotAcquiredException(key, options.waitTime(), call.waited()));
    }

    @Override
    public Optional<Lease> tryAcquire(String key, LockOptions options) {
        return acquire(call(key, options));
    }

    private static AcquireCall call(String key, LockOptions options) {
        StoreLimits.requireValidKey(key);
        Objects.requireNonNull(options, "options must not be null (use LockOptions.defaults())");
        return new AcquireCall(key, options, System.nanoTime());
    }

    private Optional<Lease> acquire(AcquireCall call) {
        String key = call.key();
        LockOptions options = call.options();
        Optional<HeldLease> mine = options.reentrant() ? held.reenter(key, options) : Optional.empty();
        if (mine.isPresent()) {
            return Optional.of(grants.reentered(mine.get()));
        }
        if (!options.fair()) {
            return lineAcquirer.acquire(call);
        }
        if (fairAcquirer == null) {
            throw new IllegalArgumentException("fair locking was asked for lock '" + key + "', but "
                    + store.getClass().getSimpleName() + " does not support it: fair mode needs a store that relays"
                    + " releases to registered waiters (WaiterRelay); drop fair, or use a store that does (PostgreSQL"
                    + " and in-memory do)");
        }
        return fairAcquirer.acquire(call);
    }

    @Override
    public MultiLease acquireAll(Collection<String> keys, LockOptions options) {
        return setAcquirer.acquire(keys, options, true).orElseThrow();
    }

    @Override
    public Optional<MultiLease> tryAcquireAll(Collection<String> keys, LockOptions options) {
        return setAcquirer.acquire(keys, options, false);
    }

    @Override
    public Optional<LeaseInfo> inspect(String key) {
        StoreLimits.requireValidKey(key);
        return store.inspect(key);
    }

    @Override
    public List<HeldLeaseInfo> heldLeases() {
        return held.infos();
    }

    @Override
    public boolean forceRelease(String key) {
        StoreLimits.requireValidKey(key);
        boolean removed = store.forceRelease(key);
        LOG.log(
                Level.WARNING,
                "lock ''{0}'' was force-released by an operator (a live lease was {1}removed)",
                LogSafe.text(key),
                removed ? "" : "not ");
        held.on(key).forEach(mine -> events.lost(mine, "an operator force-released it"));
        events.wakeWaiters(key);
        return removed;
    }

    /** Stops renewal, the loss watchdog and sweeping; held leases then run out on their own. */
    @Override
    public void close() {
        workers.forEach(LeaseWorker::close);
        if (sweeps != null) {
            sweeps.close();
        }
        places.leaveAll();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[store=" + store + ", holder=" + holderName + "]";
    }

    /** Builds a {@link DefaultLockManager} over a store. */
    public static final class Builder extends EngineBuilder<Builder> {

        private final LeaseStore store;

        private Builder(LeaseStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        @Override
        protected Builder self() {
            return this;
        }

        public DefaultLockManager build() {
            return new DefaultLockManager(store, engineSettings());
        }
    }
}
