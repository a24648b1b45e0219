package io.fencepost.lock.spring.metrics;

import io.fencepost.lock.Lease;
import io.fencepost.lock.spi.LockListener;
import io.fencepost.lock.spring.aop.DistributedLockAttempt;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Records what the lock engine does as Micrometer meters, each tagged {@code name} with the lock's low-cardinality
 * name (never its key) and, where it applies, {@code result}:
 *
 * <ul>
 *   <li>{@value #ACQUIRE} (timer): every acquisition, timed from the request to its outcome; {@code result} is
 *       {@code acquired}, {@code not-acquired}, {@code skipped} (a {@code @DistributedLock(onLocked = SKIP)} call
 *       found the key busy) or {@code error} (the store failed);
 *   <li>{@value #WAIT} (timer): for every granted lease, how long the request waited before the grant;
 *   <li>{@value #HELD} (long task timer): leases held right now and for how long; a sample ends at the release or the
 *       loss of the lease;
 *   <li>{@value #RENEWAL} (counter): renewals, {@code result} {@code renewed} or {@code failed} (the store failed;
 *       the lease may still be held);
 *   <li>{@value #LOST} (counter): leases lost while held (taken over, expired, force-released, or not confirmed in
 *       time);
 *   <li>{@value #RELEASE} (counter): releases, {@code result} {@code released} or {@code already-lost} (the lease
 *       had been lost, had expired, or the store could not be reached to remove it).
 * </ul>
 *
 * <p>A failure to record never reaches the lock engine: it is logged and the lock call goes on.
 */
public class MicrometerLockListener implements LockListener {

    /** Timer of acquisitions, by {@code name} and {@code result}. */
    public static final String ACQUIRE = "fencepost.lock.acquire";

    /** Timer of the wait before each grant, by {@code name}. */
    public static final String WAIT = "fencepost.lock.wait";

    /** Long task timer of the leases held now, by {@code name}. */
    public static final String HELD = "fencepost.lock.held";

    /** Counter of renewals, by {@code name} and {@code result}. */
    public static final String RENEWAL = "fencepost.lock.renewal";

    /** Counter of leases lost while held, by {@code name}. */
    public static final String LOST = "fencepost.lock.lost";

    /** Counter of releases, by {@code name} and {@code result}. */
    public static final String RELEASE = "fencepost.lock.release";

    private static final String NAME = "name";

    private static final String RESULT = "result";

    private static final Log logger = LogFactory.getLog(MicrometerLockListener.class);

    private final Meter.MeterProvider<Timer> acquire;

    private final Meter.MeterProvider<Timer> wait;

    private final Meter.MeterProvider<LongTaskTimer> held;

    private final Meter.MeterProvider<Counter> renewal;

    private final Meter.MeterProvider<Counter> lost;

    private final Meter.MeterProvider<Counter> release;

    /** The running {@value #HELD} sample of each grant, by key and fencing token (kept in memory only). */
    private final ConcurrentMap<Grant, LongTaskTimer.Sample> holding = new ConcurrentHashMap<>();

    /** Meters in {@code registry}. */
    public MicrometerLockListener(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        this.acquire = Timer.builder(ACQUIRE)
                .description("Lock acquisitions, timed from the request to the outcome")
                .withRegistry(registry);
        this.wait = Timer.builder(WAIT)
                .description("Time a granted lock request waited before the grant")
                .withRegistry(registry);
        this.held = LongTaskTimer.builder(HELD)
                .description("Leases held right now, and for how long")
                .withRegistry(registry);
        this.renewal = Counter.builder(RENEWAL)
                .description("Lease renewals")
                .baseUnit("renewals")
                .withRegistry(registry);
        this.lost = Counter.builder(LOST)
                .description("Leases lost while held: taken over, expired, force-released or not confirmed in time")
                .baseUnit("leases")
                .withRegistry(registry);
        this.release = Counter.builder(RELEASE)
                .description("Lease releases")
                .baseUnit("releases")
                .withRegistry(registry);
    }

    @Override
    public void acquired(String name, Lease lease, Duration waited) {
        try {
            acquire.withTags(NAME, name, RESULT, "acquired").record(waited);
            wait.withTag(NAME, name).record(waited);
            LongTaskTimer.Sample previous =
                    holding.put(Grant.of(lease), held.withTag(NAME, name).start());
            if (previous != null) {
                previous.stop(); // the same grant reported twice: keep one sample running
            }
        } catch (RuntimeException e) {
            failedToRecord("acquired", name, e);
        }
    }

    @Override
    public void notAcquired(String name, String key, Duration waited) {
        try {
            boolean skipped = DistributedLockAttempt.current()
                    .map(DistributedLockAttempt::skipsWhenLocked)
                    .orElse(false);
            acquire.withTags(NAME, name, RESULT, skipped ? "skipped" : "not-acquired")
                    .record(waited);
        } catch (RuntimeException e) {
            failedToRecord("notAcquired", name, e);
        }
    }

    @Override
    public void acquireFailed(String name, String key, Duration waited, RuntimeException failure) {
        try {
            acquire.withTags(NAME, name, RESULT, "error").record(waited);
        } catch (RuntimeException e) {
            failedToRecord("acquireFailed", name, e);
        }
    }

    @Override
    public void released(String name, Lease lease, boolean removed, Duration heldFor) {
        try {
            LongTaskTimer.Sample sample = holding.remove(Grant.of(lease));
            if (sample != null) {
                sample.stop();
            }
            // No running sample: the loss was reported first, whatever the store said about the row.
            boolean released = removed && sample != null;
            release.withTags(NAME, name, RESULT, released ? "released" : "already-lost")
                    .increment();
        } catch (RuntimeException e) {
            failedToRecord("released", name, e);
        }
    }

    @Override
    public void renewed(String name, Lease lease) {
        try {
            renewal.withTags(NAME, name, RESULT, "renewed").increment();
        } catch (RuntimeException e) {
            failedToRecord("renewed", name, e);
        }
    }

    @Override
    public void renewalFailed(String name, Lease lease, RuntimeException failure) {
        try {
            renewal.withTags(NAME, name, RESULT, "failed").increment();
        } catch (RuntimeException e) {
            failedToRecord("renewalFailed", name, e);
        }
    }

    @Override
    public void lost(String name, Lease lease, String reason) {
        try {
            lost.withTag(NAME, name).increment();
            LongTaskTimer.Sample sample = holding.remove(Grant.of(lease));
            if (sample != null) {
                sample.stop();
            }
        } catch (RuntimeException e) {
            failedToRecord("lost", name, e);
        }
    }

    private static void failedToRecord(String event, String name, RuntimeException e) {
        logger.warn("Could not record the lock event '" + event + "' of lock name '" + name + "' in Micrometer", e);
    }

    /** One grant: a key's fencing token is unique, so the pair names the grant across its lease handles. */
    private record Grant(String key, long fencingToken) {

        static Grant of(Lease lease) {
            return new Grant(lease.key(), lease.fencingToken());
        }
    }
}
