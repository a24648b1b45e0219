package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Samples;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.ClientContext;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.clients.RedissonLockClient;
import io.fencepost.lock.benchmarks.wire.CountingProxy;
import io.fencepost.lock.benchmarks.wire.RedisInfo;
import io.fencepost.lock.benchmarks.wire.StatementTiming;
import io.fencepost.lock.benchmarks.wire.WireCounts;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.spi.LockListener;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.redisson.api.RLock;

/**
 * N leases held by a few live threads while the library renews them: renewal statements per period (counted on the
 * client side for Fencepost, by the Redis server for Redisson), leases per statement, and retained heap per lease.
 */
public final class RenewalScenario {

    private static final int HOLDER_THREADS = 4;

    /** Renewal periods observed once every lease is held and one period has passed. */
    private static final int OBSERVED_PERIODS = 3;

    private final Harness harness;

    public RenewalScenario(Harness harness) {
        this.harness = harness;
    }

    public List<RenewalResult> run() throws Exception {
        List<RenewalResult> results = new ArrayList<>();
        if (harness.settings().uses(Library.FENCEPOST)) {
            results.add(fencepost());
        }
        if (harness.settings().uses(Library.REDISSON)) {
            results.add(redisson());
        }
        return results;
    }

    /** What the holder threads do with their share of the keys. */
    private interface Holding {
        Object take(String key) throws Exception;

        void release(Object held) throws Exception;
    }

    private RenewalResult fencepost() throws Exception {
        Settings settings = harness.settings();
        Duration leaseTime = settings.renewalLeaseTime();
        Duration period = leaseTime.dividedBy(3);
        AtomicLong renewed = new AtomicLong();
        AtomicLong lost = new AtomicLong();
        LockListener counting = new LockListener() {
            @Override
            public void renewed(String name, Lease lease) {
                renewed.incrementAndGet();
            }

            @Override
            public void lost(String name, Lease lease, String reason) {
                lost.incrementAndGet();
            }
        };
        StatementTiming timing = new StatementTiming();
        LockOptions options = LockOptions.builder().leaseTime(leaseTime).build();
        try (PostgresLockManager locks = PostgresLockManager.builder(
                        timing.wrap(harness.context().dataSource()))
                .listener(counting)
                .build()) {
            Holding holding = new Holding() {
                @Override
                public Object take(String key) {
                    return locks.tryAcquire(key, options).orElseThrow();
                }

                @Override
                public void release(Object held) {
                    if (!((Lease) held).release()) {
                        throw new IllegalStateException("the lease was no longer held");
                    }
                }
            };
            return hold("Fencepost", holding, period, leaseTime, (window) -> {
                timing.reset();
                renewed.set(0);
                lost.set(0);
                long started = System.nanoTime();
                TimeUnit.NANOSECONDS.sleep(window.toNanos());
                double seconds = (System.nanoTime() - started) / 1e9;
                Map<String, Integer> counts = timing.counts();
                int statements =
                        counts.values().stream().mapToInt(Integer::intValue).sum();
                Samples renewals = timing.durations("UPDATE");
                return new Window(
                        seconds,
                        statements,
                        renewed.get(),
                        renewals.percentile(50) / 1e6,
                        renewals.percentile(100) / 1e6,
                        lost.get(),
                        describe(counts));
            });
        }
    }

    private RenewalResult redisson() throws Exception {
        Settings settings = harness.settings();
        Duration watchdog = settings.renewalLeaseTime();
        Duration period = watchdog.dividedBy(3);
        RedisInfo info = new RedisInfo(settings.redisHost(), settings.redisPort());
        // Through the counting proxy: Redis's own statistics also count the calls made inside Lua scripts, so what
        // the client sent is counted on the wire and what Redis executed is shown beside it.
        try (CountingProxy proxy = new CountingProxy(settings.redisHost(), settings.redisPort())) {
            RedissonLockClient client = new RedissonLockClient(
                    new ClientContext(
                            harness.context().dataSource(), proxy.host(), proxy.port(), ClientContext.LEASE_TIME),
                    watchdog);
            try {
                Holding holding = new Holding() {
                    @Override
                    public Object take(String key) {
                        RLock lock = client.redisson().getLock(key);
                        lock.lock();
                        return lock;
                    }

                    @Override
                    public void release(Object held) {
                        ((RLock) held).unlock();
                    }
                };
                return hold("Redisson (watchdog)", holding, period, watchdog, (window) -> {
                    Map<String, Long> before = info.commandCalls();
                    proxy.counter().reset();
                    long started = System.nanoTime();
                    TimeUnit.NANOSECONDS.sleep(window.toNanos());
                    WireCounts sent = proxy.counter().counts();
                    Map<String, Long> executed = RedisInfo.delta(info.commandCalls(), before);
                    double seconds = (System.nanoTime() - started) / 1e9;
                    // Redisson extends many locks per script call and neither side can tell how many each covered:
                    // the extensions are not counted (leases per command is derived from the lease count), and the
                    // unlocks at the end show whether any lock expired for want of renewal.
                    return new Window(
                            seconds,
                            sent.statements(),
                            Double.NaN,
                            Double.NaN,
                            Double.NaN,
                            0,
                            "sent: " + describe(sent.byKind()) + "; executed by Redis (inside scripts too): "
                                    + describe(executed));
                });
            } finally {
                client.close();
            }
        }
    }

    /** What was seen during the observation window. */
    private record Window(
            double seconds,
            long statements,
            double renewed,
            double statementP50Ms,
            double statementMaxMs,
            long lost,
            String breakdown) {}

    @FunctionalInterface
    private interface Observation {
        Window observe(Duration window) throws Exception;
    }

    private RenewalResult hold(String name, Holding holding, Duration period, Duration leaseTime, Observation observe)
            throws Exception {
        int leases = harness.settings().leases();
        String prefix = "bench:renewal:" + name.split(" ")[0].toLowerCase(java.util.Locale.ROOT) + ":";
        Object[] held = new Object[leases];
        CountDownLatch acquired = new CountDownLatch(HOLDER_THREADS);
        CountDownLatch releaseNow = new CountDownLatch(1);
        List<Thread> holders = new ArrayList<>();
        List<Exception> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicLong releaseFailures = new AtomicLong();
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long heapBefore = settledHeap(memory);
        long start = System.nanoTime();
        for (int t = 0; t < HOLDER_THREADS; t++) {
            int first = t;
            Thread holder = new Thread(
                    () -> {
                        try {
                            for (int i = first; i < leases; i += HOLDER_THREADS) {
                                held[i] = holding.take(prefix + i);
                            }
                        } catch (Exception e) {
                            failures.add(e);
                        } finally {
                            acquired.countDown();
                        }
                        try {
                            // Renewal only goes on while the thread that took a lease is alive: stay alive.
                            releaseNow.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        for (int i = first; i < leases; i += HOLDER_THREADS) {
                            if (held[i] != null) {
                                try {
                                    holding.release(held[i]);
                                } catch (Exception e) {
                                    // not held any more: it expired for want of renewal
                                    releaseFailures.incrementAndGet();
                                }
                            }
                        }
                    },
                    "lease-holder-" + t);
            holder.setDaemon(true);
            holders.add(holder);
            holder.start();
        }
        try {
            if (!acquired.await(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("holders did not take " + leases + " leases within 5 minutes");
            }
            if (!failures.isEmpty()) {
                throw failures.get(0);
            }
            double acquireSeconds = (System.nanoTime() - start) / 1e9;
            long heapAfter = settledHeap(memory);
            harness.log("renewal " + name + ": " + leases + " leases held after " + "%.1f s".formatted(acquireSeconds)
                    + ", observing " + OBSERVED_PERIODS + " renewal periods of " + period.toMillis() + " ms");
            // Let every lease reach its steady renewal rhythm before counting.
            TimeUnit.NANOSECONDS.sleep(period.toNanos());
            Window window = observe.observe(period.multipliedBy(OBSERVED_PERIODS));
            double periods = window.seconds() / (period.toNanos() / 1e9);
            RenewalResult result = new RenewalResult(
                    name,
                    leases,
                    leaseTime.toMillis() / 1e3,
                    period.toMillis() / 1e3,
                    acquireSeconds,
                    window.seconds(),
                    window.statements() / periods,
                    window.statements() == 0
                            ? Double.NaN
                            : Double.isNaN(window.renewed())
                                    ? leases * periods / window.statements()
                                    : window.renewed() / window.statements(),
                    window.renewed() / periods,
                    window.statementP50Ms(),
                    window.statementMaxMs(),
                    window.lost(),
                    (double) (heapAfter - heapBefore) / leases,
                    window.breakdown());
            releaseNow.countDown();
            for (Thread holder : holders) {
                holder.join(TimeUnit.MINUTES.toMillis(2));
            }
            result = withLost(result, window.lost() + releaseFailures.get());
            harness.log("renewal " + name
                    + ": %.1f statements per period, %.0f leases per statement, %.0f B heap per lease"
                            .formatted(
                                    result.statementsPerPeriod(),
                                    result.leasesPerStatement(),
                                    result.heapBytesPerLease()));
            return result;
        } finally {
            releaseNow.countDown();
            for (Thread holder : holders) {
                holder.join(TimeUnit.MINUTES.toMillis(2));
            }
        }
    }

    private static RenewalResult withLost(RenewalResult r, long lost) {
        return new RenewalResult(
                r.library(),
                r.leases(),
                r.leaseSeconds(),
                r.period(),
                r.acquireSeconds(),
                r.observedSeconds(),
                r.statementsPerPeriod(),
                r.leasesPerStatement(),
                r.renewedPerPeriod(),
                r.statementP50Ms(),
                r.statementMaxMs(),
                lost,
                r.heapBytesPerLease(),
                r.breakdown());
    }

    /** Used heap after the collector has had its say a few times. */
    private static long settledHeap(MemoryMXBean memory) throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            TimeUnit.MILLISECONDS.sleep(100);
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    private static String describe(Map<String, ? extends Number> counts) {
        return counts.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }
}
