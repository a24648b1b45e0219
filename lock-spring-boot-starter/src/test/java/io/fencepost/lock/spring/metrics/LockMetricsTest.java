package io.fencepost.lock.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.OnLocked;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spring.autoconfigure.LockMetricsAutoConfiguration;
import io.fencepost.lock.spring.test.LockContextRunners;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The meters of a real lock manager on PostgreSQL, after acquiring, waiting, renewing, losing and releasing: right
 * names, right {@code name} and {@code result} tags, and never a raw key anywhere.
 */
class LockMetricsTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private final ApplicationContextRunner contextRunner = LockContextRunners.onDatabase(
                    db, LockMetricsAutoConfiguration.class)
            .withPropertyValues("spring.datasource.hikari.maximum-pool-size=4")
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withBean(ReportJob.class);

    @Test
    void anAcquiredLeaseIsTimedAndHeldUntilItsRelease() {
        contextRunner.run(context -> {
            LockManager locks = context.getBean(LockManager.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Lease lease = locks.acquire("invoice:42", options("billing", Duration.ofSeconds(30)));

            assertThat(meters.get("fencepost.lock.acquire")
                            .tags("name", "billing", "result", "acquired")
                            .timer()
                            .count())
                    .isOne();
            assertThat(meters.get("fencepost.lock.wait")
                            .tags("name", "billing")
                            .timer()
                            .count())
                    .isOne();
            assertThat(meters.get("fencepost.lock.held")
                            .tags("name", "billing")
                            .longTaskTimer()
                            .activeTasks())
                    .isOne();

            assertThat(lease.release()).isTrue();
            assertThat(meters.get("fencepost.lock.held")
                            .tags("name", "billing")
                            .longTaskTimer()
                            .activeTasks())
                    .isZero();
            assertThat(meters.get("fencepost.lock.release")
                            .tags("name", "billing", "result", "released")
                            .counter()
                            .count())
                    .isOne();
            assertNoMeterCarries(meters, "invoice:42");
        });
    }

    @Test
    void aWaiterIsTimedUntilItsGrantAndABusyKeyIsNotAcquired() throws Exception {
        contextRunner.run(context -> {
            LockManager locks = context.getBean(LockManager.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Lease first = locks.acquire("invoice:43", options("billing", Duration.ofSeconds(30)));

            Optional<Lease> busy = CompletableFuture.supplyAsync(
                            () -> locks.tryAcquire("invoice:43", options("billing", Duration.ofSeconds(30))))
                    .get(10, TimeUnit.SECONDS);
            assertThat(busy).isEmpty();
            assertThat(meters.get("fencepost.lock.acquire")
                            .tags("name", "billing", "result", "not-acquired")
                            .timer()
                            .count())
                    .isOne();

            AtomicLong askedAt = new AtomicLong();
            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> {
                waiterThread.set(Thread.currentThread());
                askedAt.set(System.nanoTime());
                return locks.acquire(
                        "invoice:43",
                        options("billing", Duration.ofSeconds(30)).toBuilder()
                                .waitTime(Duration.ofSeconds(30))
                                .build());
            });
            await().atMost(Duration.ofSeconds(10))
                    .until(() ->
                            waiterThread.get() != null && waiterThread.get().getState() == Thread.State.TIMED_WAITING);
            long releasedAt = System.nanoTime();
            first.release();
            Lease second = waiter.get(10, TimeUnit.SECONDS);

            assertThat(meters.get("fencepost.lock.acquire")
                            .tags("name", "billing", "result", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(2);
            assertThat(meters.get("fencepost.lock.wait")
                            .tags("name", "billing")
                            .timer()
                            .max(TimeUnit.NANOSECONDS))
                    .as("the waiter cannot have been granted before the release")
                    .isGreaterThanOrEqualTo((double) (releasedAt - askedAt.get()));
            second.release();
            assertNoMeterCarries(meters, "invoice:43");
        });
    }

    @Test
    void anAnnotatedCallThatSkipsABusyKeyIsTaggedSkipped() throws Exception {
        contextRunner.run(context -> {
            LockManager locks = context.getBean(LockManager.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            ReportJob job = context.getBean(ReportJob.class);
            try (Lease held = locks.acquire("report:nightly", options("manual", Duration.ofSeconds(30)))) {
                boolean ran = CompletableFuture.supplyAsync(job::nightly).get(10, TimeUnit.SECONDS);
                assertThat(ran).as("skipped: the method was not run").isFalse();
            }
            assertThat(meters.get("fencepost.lock.acquire")
                            .tags("name", "report", "result", "skipped")
                            .timer()
                            .count())
                    .isOne();
            assertThat(meters.find("fencepost.lock.acquire")
                            .tags("name", "report", "result", "not-acquired")
                            .timer())
                    .isNull();
            assertThat(job.nightly()).as("the key is free again").isTrue();
            assertThat(meters.get("fencepost.lock.acquire")
                            .tags("name", "report", "result", "acquired")
                            .timer()
                            .count())
                    .isOne();
            assertNoMeterCarries(meters, "report:nightly");
        });
    }

    @Test
    void aStoreFailureIsTaggedError() {
        contextRunner
                .withPropertyValues(
                        "fencepost.jdbc.initialize-schema=none",
                        "fencepost.jdbc.table-name=never_created_lock",
                        "fencepost.jdbc.allow-other-lock-tables=true")
                .run(context -> {
                    LockManager locks = context.getBean(LockManager.class);
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThatExceptionOfType(LockStoreException.class)
                            .isThrownBy(() -> locks.acquire("invoice:44", options("billing", Duration.ofSeconds(30))));
                    assertThat(meters.get("fencepost.lock.acquire")
                                    .tags("name", "billing", "result", "error")
                                    .timer()
                                    .count())
                            .isOne();
                    assertNoMeterCarries(meters, "invoice:44");
                });
    }

    @Test
    void renewalsAreCountedAndALeaseTakenAwayIsCountedLostAndReleasedAsAlreadyLost() {
        contextRunner.run(context -> {
            LockManager locks = context.getBean(LockManager.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Lease lease = locks.acquire("ledger:7", options("ledger", Duration.ofMillis(900)));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> count(meters, "fencepost.lock.renewal", "name", "ledger", "result", "renewed") >= 1);

            try (PostgresLockManager operator =
                    PostgresLockManager.builder(db.dataSource()).build()) {
                assertThat(operator.forceRelease("ledger:7")).isTrue();
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> count(meters, "fencepost.lock.lost", "name", "ledger") == 1);
            assertThat(lease.isHeld()).isFalse();
            assertThat(meters.get("fencepost.lock.held")
                            .tags("name", "ledger")
                            .longTaskTimer()
                            .activeTasks())
                    .isZero();

            lease.close();
            assertThat(meters.get("fencepost.lock.release")
                            .tags("name", "ledger", "result", "already-lost")
                            .counter()
                            .count())
                    .isOne();
            assertNoMeterCarries(meters, "ledger:7");
        });
    }

    @Test
    void aRenewalTheStoreCannotConfirmIsCountedFailed() {
        contextRunner
                .withPropertyValues(
                        "fencepost.jdbc.table-name=renewal_lock", "fencepost.jdbc.allow-other-lock-tables=true")
                .run(context -> {
                    LockManager locks = context.getBean(LockManager.class);
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    Lease lease = locks.acquire("ledger:8", options("ledger", Duration.ofMillis(900)));
                    db.execute("ALTER TABLE renewal_lock RENAME TO renewal_lock_away");
                    try {
                        await().atMost(Duration.ofSeconds(10))
                                .until(() ->
                                        count(meters, "fencepost.lock.renewal", "name", "ledger", "result", "failed")
                                                >= 1);
                    } finally {
                        db.execute("ALTER TABLE renewal_lock_away RENAME TO renewal_lock");
                    }
                    lease.close();
                    assertNoMeterCarries(meters, "ledger:8");
                });
    }

    @Test
    void rowsTheSweeperRemovesAreCountedByKindNeverByKey() {
        contextRunner.withPropertyValues("fencepost.jdbc.sweep.interval=100ms").run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            // a crashed holder's lease, ended a minute ago
            db.execute("INSERT INTO distributed_lock (lock_key, owner_token, holder, fencing_token,"
                    + " acquired_at, expires_at) VALUES ('invoice:crashed', gen_random_uuid(), 'gone@host',"
                    + " nextval('distributed_lock_fence_seq'), now() - interval '2 minutes',"
                    + " now() - interval '1 minute')");

            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(count(meters, "fencepost.lock.swept", "kind", "lease"))
                            .isGreaterThanOrEqualTo(1));
            assertThat(context.getBean(LockManager.class).inspect("invoice:crashed"))
                    .isEmpty();
            assertNoMeterCarries(meters, "invoice:crashed");
        });
    }

    @Test
    void theListenerIsTheLockManagersOnlyWhenMicrometerIsThere() {
        contextRunner.run(context -> assertThat(context).hasSingleBean(MicrometerLockListener.class));
    }

    private static double count(MeterRegistry meters, String name, String... tags) {
        var counter = meters.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    private static void assertNoMeterCarries(MeterRegistry meters, String key) {
        assertThat(meters.getMeters()).isNotEmpty();
        for (Meter meter : meters.getMeters()) {
            assertThat(meter.getId().getName()).doesNotContain(key);
            for (Tag tag : meter.getId().getTags()) {
                assertThat(tag.getValue()).as(meter.getId().toString()).doesNotContain(key);
            }
        }
    }

    private static LockOptions options(String name, Duration leaseTime) {
        return LockOptions.builder().leaseTime(leaseTime).name(name).build();
    }

    static class ReportJob {

        @DistributedLock(key = "'report:nightly'", name = "report", onLocked = OnLocked.SKIP)
        public boolean nightly() {
            return true;
        }
    }
}
