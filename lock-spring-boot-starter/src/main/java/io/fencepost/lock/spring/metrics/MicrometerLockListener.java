package io.fencepost.lock.spring.metrics;

import io.fencepost.lock.Lease;
import io.fencepost.lock.spi.LockListener;
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
 *       {@code acquired}, {@code not-acquired}, {@code skipped} (a caller that skips its work when the key is busy,
 *       such as a {@code @DistributedLock(onLocked = SKIP)} call, found it busy) or {@code error} (the store
 *       failed);
 *   <li>{@value #WAIT} (timer): for every granted lease, how long the request waited before the grant;
 *   <li>{@value #HELD} (long task timer): leases held right now and for how long; a sample ends at the release or the
 *       loss of the lease;
 *   <li>{@value #RENEWAL} (counter): renewals, {@code result} {@code renewed} or {@code failed} (the store failed;
 *       the lease may still be held);
 *   <li>{@value #LOST} (counter): leases lost while held (taken over, expired, force-released, or not confirmed in
 *       time);
 *   <li>{@value #RELEASE} (counter): releases, {@code result} {@code released} or {@code already-lost} (the lease
 *       had been lost, had expired, or the store could not be reached to remove it);
 *   <li>{@value #SWEPT} (counter): rows the store's background sweeper removed, tagged {@code kind} ({@code lease},
 *       {@code registration} or {@code fence}) instead of {@code name}, since they belong to no lock call.
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

    /** Counter of rows the store's sweeper removed, by {@code kind}. */
    public static final String SWEPT = "fencepost.lock.swept";

    private static final String NAME = "name";

    private static final String KIND = "kind";

    private static final String RESULT = "result";

    private static final Log logger = LogFactory.getLog(MicrometerLockListener.class);

    private final Meter.MeterProvider<Timer> acquire;

    private final Meter.MeterProvider<Timer> wait;

    private final Meter.MeterProvider<LongTaskTimer> held;

    private final Meter.MeterProvider<Counter> renewal;

    private final Meter.MeterProvider<Counter> lost;

    private final Meter.MeterProvider<Counter> release;

    private final Meter.MeterProvider<Counter> swept;

    /** The running {@value #HELD} sample of each lease, by key and fencing token (kept in memory only). */
    private final ConcurrentMap<HeldLease, LongTaskTimer.Sample> holding = new ConcurrentHashMap<>();

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
        this.swept = Counter.builder(SWEPT)
                .description("Rows of ended leases, lapsed registrations or old fence records that the sweeper removed")
                .baseUnit("rows")
                .withRegistry(registry);
    }

    @Override
    public void acquired(String name, Lease lease, Duration waited) {
        record("acquired", name, () -> {
            acquire.withTags(NAME, name, RESULT, "acquired").record(waited);
            wait.withTag(NAME, name).record(waited);
            LongTaskTimer.Sample previous =
                    holding.put(HeldLease.of(lease), held.withTag(NAME, name).start());
            if (previous != null) {
                previous.stop(); // the same lease reported twice: keep one sample running
            }
        });
    }

    @Override
    public void notAcquired(String name, String key, Duration waited, boolean skipped) {
        record(
                "notAcquired",
                name,
                () -> acquire.withTags(NAME, name, RESULT, skipped ? "skipped" : "not-acquired")
                        .record(waited));
    }

    @Override
    public void acquireFailed(String name, String key, Duration waited, RuntimeException failure) {
        record(
                "acquireFailed",
                name,
                () -> acquire.withTags(NAME, name, RESULT, "error").record(waited));
    }

    @Override
    public void released(String name, Lease lease, boolean removed, Duration heldFor) {
        record("released", name, () -> {
            // No running sample: the loss was reported first, whatever the store said about the row.
            boolean released = stopHeld(lease) && removed;
            release.withTags(NAME, name, RESULT, released ? "released" : "already-lost")
                    .increment();
        });
    }

    @Override
    public void renewed(String name, Lease lease) {
        countRenewal(name, "renewed");
    }

    @Override
    public void renewalFailed(String name, Lease lease, RuntimeException failure) {
        countRenewal(name, "failed");
    }

    private void countRenewal(String name, String result) {
        record(
                "renewal " + result,
                name,
                () -> renewal.withTags(NAME, name, RESULT, result).increment());
    }

    @Override
    public void lost(String name, Lease lease, String reason) {
        record("lost", name, () -> {
            lost.withTag(NAME, name).increment();
            stopHeld(lease);
        });
    }

    @Override
    public void swept(String kind, int removed) {
        record("swept", kind, () -> swept.withTag(KIND, kind).increment(removed));
    }

    /** Ends the lease's {@value #HELD} sample; false when none was running. */
    private boolean stopHeld(Lease lease) {
        LongTaskTimer.Sample sample = holding.remove(HeldLease.of(lease));
        if (sample != null) {
            sample.stop();
        }
        return sample != null;
    }

    /** Records an event; a failure to record is logged and never reaches the lock engine. */
    private static void record(String event, String name, Runnable recording) {
        try {
            recording.run();
        } catch (RuntimeException e) {
            logger.warn("Could not record the lock event '" + event + "' of lock name '" + name + "' in Micrometer", e);
        }
    }

    /** One lease: a key's fencing token is unique, so the pair names the lease across its reentrant holds. */
    private record HeldLease(String key, long fencingToken) {

        static HeldLease of(Lease lease) {
            return new HeldLease(lease.key(), lease.fencingToken());
        }
    }
}
