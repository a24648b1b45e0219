package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.jdbc.test.CloseAfterEach;
import io.fencepost.lock.jdbc.test.CountingDataSource;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.jdbc.test.ProxiedPool;
import io.fencepost.lock.jdbc.test.TcpProxy;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.LockListener;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.RenewRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/** Honest renewal on PostgreSQL: it keeps live holders, stops for dead ones, and never revives a release. */
class RenewalTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase(12);

    private static final LockOptions PROBE = LockOptions.of(Duration.ofMinutes(1));

    @RegisterExtension
    final CloseAfterEach closer = new CloseAfterEach();

    private PostgresLockManager manager() {
        return closer.add(PostgresLockManager.builder(db.dataSource()).build());
    }

    private static String key() {
        return "renewal:" + UUID.randomUUID();
    }

    @Test
    void aRenewedLeaseIsNeverTakenOverForTenLeaseTimes() {
        PostgresLockManager holder = manager();
        PostgresLockManager other = manager();
        String key = key();
        Lease lease = holder.acquire(key, LockOptions.of(Duration.ofMillis(300)));

        await().during(Duration.ofSeconds(3))
                .atMost(Duration.ofSeconds(6))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> lease.isHeld() && other.tryAcquire(key, PROBE).isEmpty());

        assertThat(holder.inspect(key).orElseThrow().fencingToken()).isEqualTo(lease.fencingToken());
        assertThat(lease.release()).isTrue();
    }

    @Test
    void aLeaseWhoseThreadDiedIsTakenOverWithinAboutOneLeaseTime() throws Exception {
        PostgresLockManager holder = manager();
        PostgresLockManager other = manager();
        String key = key();
        Duration leaseTime = Duration.ofMillis(600);
        Thread thread = new Thread(() -> holder.acquire(key, LockOptions.of(leaseTime)));
        thread.start();
        thread.join();
        long died = System.nanoTime();

        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> other.tryAcquire(key, PROBE).isPresent());

        // At most one lease time after the last renewal, plus polling: well under two lease times.
        assertThat(Duration.ofNanos(System.nanoTime() - died)).isLessThan(leaseTime.multipliedBy(2));
    }

    @Test
    void renewalStopsAtTheMaxHoldTimeAndTheHolderIsTold() {
        PostgresLockManager holder = manager();
        PostgresLockManager other = manager();
        String key = key();
        Lease lease = holder.acquire(
                key,
                LockOptions.builder()
                        .leaseTime(Duration.ofMillis(300))
                        .maxHoldTime(Duration.ofMillis(900))
                        .build());
        AtomicReference<String> lost = new AtomicReference<>();
        lease.onLost(e -> lost.set(e.getMessage()));
        long start = System.nanoTime();

        await().atMost(Duration.ofSeconds(5))
                .until(() -> other.tryAcquire(key, PROBE).isPresent());

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(800));
        await().atMost(Duration.ofSeconds(2)).until(() -> lost.get() != null);
        assertThat(lost.get()).contains("max hold time");
        assertThat(lease.isHeld()).isFalse();
    }

    @Test
    void withTheDatabaseUnreachableTheHolderLearnsOfTheLossBeforeTheDatabaseSideExpiry() throws Exception {
        ProxiedPool throughProxy = closer.add(ProxiedPool.failingFast(db));
        TcpProxy proxy = throughProxy.proxy();
        PostgresLockManager holder = closer.add(throughProxy.manager(Duration.ofMillis(500)));
        String key = key();
        Lease lease = holder.acquire(key, LockOptions.of(Duration.ofSeconds(3)));
        DatabaseClock clock = DatabaseClock.read(db);
        AtomicReference<Instant> learnedAt = new AtomicReference<>();

        proxy.stall();
        // The moment the holder gives the lease up, on the JVM's clock: the first nanoTime after isHeld() turned
        // false is no earlier than it. Comparing that with the row's expiry on the database's clock (mapped by
        // the reading above) does not depend on how long anything after it takes.
        long gaveUpBy = firstNanoTimeNotHeld(
                lease, clock.earliestNanosAt(lease.expiresAt().minusMillis(300)));
        Instant storeExpiry = expiresAt(key);

        assertThat(clock.latestAt(gaveUpBy))
                .as("the latest database time at which the holder can have given the lease up")
                .isBefore(storeExpiry);
        lease.onLost(e -> learnedAt.set(Instant.now()));
        await().atMost(Duration.ofSeconds(2)).until(() -> learnedAt.get() != null);
        proxy.resume();
    }

    /** Spins on {@code isHeld()} from {@code spinFrom} on (parked until then, to leave the CPU to the rest). */
    private static long firstNanoTimeNotHeld(Lease lease, long spinFrom) {
        long now;
        while ((now = System.nanoTime()) - spinFrom < 0 && lease.isHeld()) {
            LockSupport.parkNanos(Math.min(spinFrom - now, 10_000_000L));
        }
        long giveUp = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (lease.isHeld()) {
            if (System.nanoTime() - giveUp > 0) {
                throw new AssertionError("the lease was still held 10 s after its expiry without the database");
            }
            Thread.onSpinWait();
        }
        return System.nanoTime();
    }

    private Instant expiresAt(String key) throws Exception {
        try (Connection direct = db.dataSource().getConnection();
                PreparedStatement query =
                        direct.prepareStatement("SELECT expires_at FROM distributed_lock WHERE lock_key = ?")) {
            query.setString(1, key);
            try (ResultSet rs = query.executeQuery()) {
                assertThat(rs.next()).as("the lease row of " + key).isTrue();
                return rs.getObject(1, OffsetDateTime.class).toInstant();
            }
        }
    }

    /**
     * The database's clock against the JVM's monotonic one, from the tightest of a few readings: at the reading's
     * start the database's time was at most what it answered.
     */
    private record DatabaseClock(long startNanos, Instant answered) {

        static DatabaseClock read(PostgresTestDatabase db) throws Exception {
            DatabaseClock best = null;
            long bestWidth = Long.MAX_VALUE;
            try (Connection direct = db.dataSource().getConnection();
                    PreparedStatement query = direct.prepareStatement("SELECT clock_timestamp()")) {
                for (int i = 0; i < 5; i++) {
                    long start = System.nanoTime();
                    Instant answered;
                    try (ResultSet rs = query.executeQuery()) {
                        rs.next();
                        answered = rs.getObject(1, OffsetDateTime.class).toInstant();
                    }
                    long width = System.nanoTime() - start;
                    if (width < bestWidth) {
                        bestWidth = width;
                        best = new DatabaseClock(start, answered);
                    }
                }
            }
            return best;
        }

        /** The earliest JVM time at which the database's clock can read {@code at}. */
        long earliestNanosAt(Instant at) {
            return startNanos + Duration.between(answered, at).toNanos();
        }

        /** The latest the database's clock can have read at JVM time {@code nanos}. */
        Instant latestAt(long nanos) {
            return answered.plusNanos(nanos - startNanos);
        }
    }

    @Test
    @Tag("full") // a scale test: 10,000 leases take a quarter of a minute to acquire
    void tenThousandLeasesAreRenewedByOneStatementPerTick() throws Exception {
        PGSimpleDataSource physical = new PGSimpleDataSource();
        physical.setURL(db.jdbcUrl());
        CountingDataSource counting = new CountingDataSource(physical);
        HikariConfig config = new HikariConfig();
        config.setDataSource(counting);
        config.setMaximumPoolSize(8);
        HikariDataSource pool = closer.add(new HikariDataSource(config));
        AtomicInteger renewed = new AtomicInteger();
        PostgresLockManager holder = closer.add(PostgresLockManager.builder(pool)
                .listener(new LockListener() {
                    @Override
                    public void renewed(String name, Lease lease) {
                        renewed.incrementAndGet();
                    }
                })
                .build());
        int leases = 10_000;
        // Long enough that a loaded machine (10,000 acquisitions competing with renewal for 8 connections) does not
        // lose leases to late renewals: this test counts statements and heap, not deadlines.
        LockOptions options = LockOptions.of(Duration.ofSeconds(20));
        long heapBefore = usedHeapAfterGc();
        ExecutorService threads = Executors.newFixedThreadPool(6);
        CountDownLatch release = new CountDownLatch(1);
        List<Future<?>> holders = new ArrayList<>();
        AtomicInteger acquired = new AtomicInteger();
        try {
            // Leases stay owned by live threads, so that renewal keeps them.
            for (int t = 0; t < 6; t++) {
                int slice = t;
                holders.add(threads.submit(() -> {
                    for (int i = slice; i < leases; i += 6) {
                        holder.acquire("bulk:" + i, options);
                        acquired.incrementAndGet();
                    }
                    release.await();
                    return null;
                }));
            }
            await().atMost(Duration.ofMinutes(2)).until(() -> acquired.get() == leases);
            long heapPerLease = (usedHeapAfterGc() - heapBefore) / leases;
            // Let the renewal schedule settle past the acquisition phase, then measure two rounds.
            renewed.set(0);
            await().atMost(Duration.ofSeconds(60)).until(() -> renewed.get() >= leases);
            counting.reset();
            renewed.set(0);

            await().atMost(Duration.ofSeconds(60)).until(() -> renewed.get() >= 2 * leases);

            long renewStatements = counting.executedSql().stream()
                    .filter(sql -> sql.startsWith("UPDATE"))
                    .count();
            System.out.printf(
                    "renewed %d leases in %d statements; heap per held lease about %d bytes%n",
                    renewed.get(), renewStatements, heapPerLease);
            assertThat(renewStatements).isPositive();
            assertThat(renewed.get() / renewStatements)
                    .as("leases renewed per statement")
                    .isGreaterThanOrEqualTo(1_000);
            assertThat(heapPerLease).as("heap per held lease, bytes").isLessThan(4_096);
            assertThat(holder.heldLeases()).hasSize(leases);
        } finally {
            release.countDown();
            threads.shutdown();
            threads.awaitTermination(1, TimeUnit.MINUTES);
        }
    }

    private static long usedHeapAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }

    @Test
    void releaseRacingRenewalNeverExtendsOrRecreatesAReleasedLease() throws Exception {
        PostgresLeaseStore postgres =
                new PostgresLeaseStore(db.dataSource(), "distributed_lock", Duration.ofSeconds(5));
        PostgresLockManager.create(db.dataSource()).close();
        RacingStore racing = new RacingStore(postgres);
        DefaultLockManager locks = closer.add(DefaultLockManager.builder(racing).build());
        LockManager observer = manager();
        // The full tier races 1,000 releases; the default tier, which must answer in minutes, a quarter of them.
        int iterations = "full".equals(System.getProperty("fencepost.test.tier")) ? 1_000 : 250;
        int raced = 0;
        for (int i = 0; i < iterations; i++) {
            int iteration = i;
            String key = "race:" + i;
            boolean minHold = i % 2 == 1;
            LockOptions options = LockOptions.builder()
                    .leaseTime(Duration.ofMillis(60))
                    .minHoldTime(minHold ? Duration.ofMillis(40) : Duration.ZERO)
                    .build();
            Lease lease = locks.acquire(key, options);
            CountDownLatch renewing = racing.nextRenewal();
            // Release while a renewal of this lease is in flight: before, during or after its UPDATE.
            if (renewing.await(2, TimeUnit.SECONDS)) {
                raced++;
            }
            if (ThreadLocalRandom.current().nextBoolean()) {
                Thread.onSpinWait();
            }
            lease.release();
            racing.releaseDone();
            Optional<io.fencepost.lock.LeaseInfo> after = observer.inspect(key);
            if (minHold) {
                after.ifPresent(info -> assertThat(info.expiresAt())
                        .as("iteration %d: a released lease is never extended past its min hold", iteration)
                        .isBeforeOrEqualTo(info.acquiredAt().plusMillis(40)));
            } else {
                assertThat(after)
                        .as("iteration %d: a released lease is never re-created", i)
                        .isEmpty();
            }
        }
        assertThat(raced).as("renewals in flight at release").isGreaterThan(iterations / 2);
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            try (Connection connection = db.dataSource().getConnection();
                    PreparedStatement count = connection.prepareStatement(
                            "SELECT count(*) FROM distributed_lock WHERE lock_key LIKE 'race:%'"
                                    + " AND expires_at > clock_timestamp()");
                    ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getInt(1) == 0;
            }
        });
    }

    /**
     * Lets the test release a lease exactly while its renewal is in flight: a renewal announces itself, then
     * waits a moment for the release before or after sending its statement.
     */
    private static final class RacingStore implements LeaseStore {

        private final LeaseStore delegate;

        private volatile CountDownLatch renewing = new CountDownLatch(1);

        private volatile CountDownLatch released = new CountDownLatch(1);

        RacingStore(LeaseStore delegate) {
            this.delegate = delegate;
        }

        CountDownLatch nextRenewal() {
            renewing = new CountDownLatch(1);
            released = new CountDownLatch(1);
            return renewing;
        }

        void releaseDone() {
            released.countDown();
        }

        @Override
        public io.fencepost.lock.spi.AcquireResult acquire(AcquireRequest request) {
            return delegate.acquire(request);
        }

        @Override
        public Map<RenewRequest, Instant> renew(Collection<RenewRequest> requests) {
            CountDownLatch waitFor = released;
            boolean updateFirst = ThreadLocalRandom.current().nextBoolean();
            renewing.countDown();
            try {
                if (updateFirst) {
                    return delegate.renew(requests);
                }
                waitFor.await(20, TimeUnit.MILLISECONDS);
                return delegate.renew(requests);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Map.of();
            }
        }

        @Override
        public boolean release(ReleaseRequest request) {
            return delegate.release(request);
        }

        @Override
        public Subscription subscribe(String key, Runnable wakeUp) {
            return delegate.subscribe(key, wakeUp);
        }

        @Override
        public boolean forceRelease(String key) {
            return delegate.forceRelease(key);
        }

        @Override
        public Optional<io.fencepost.lock.LeaseInfo> inspect(String key) {
            return delegate.inspect(key);
        }
    }
}
