package io.fencepost.lock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.LockListener;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockingTaskExecutor.TaskResult;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The provider as {@code @SchedulerLock} uses it, through ShedLock's task executor, with two clients (two lock
 * managers, as two instances of an application would have) on one PostgreSQL database.
 */
class FencepostLockProviderTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase(10);

    private static PostgresLockManager locksA;

    private static PostgresLockManager locksB;

    private static FencepostLockProvider providerA;

    private static FencepostLockProvider providerB;

    @BeforeAll
    static void start() {
        locksA = PostgresLockManager.create(db.dataSource());
        locksB = PostgresLockManager.create(db.dataSource());
        providerA = new FencepostLockProvider(locksA);
        providerB = new FencepostLockProvider(locksB);
    }

    @AfterAll
    static void close() {
        locksA.close();
        locksB.close();
    }

    private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(Instant.now(), name, atMost, atLeast);
    }

    @Test
    void aRunningTaskReadsItsLeaseAndFencingTokenAndTokensGrowFromRunToRun() throws Throwable {
        String name = "report-" + UUID.randomUUID();
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(providerA);
        LockConfiguration config = config(name, Duration.ofSeconds(30), Duration.ZERO);

        TaskResult<Long> first = executor.executeWithLock(
                () -> FencepostLockProvider.currentLease(name).orElseThrow().fencingToken(), config);
        TaskResult<Long> second = executor.executeWithLock(
                () -> FencepostLockProvider.currentLease().orElseThrow().fencingToken(), config);

        assertThat(first.wasExecuted()).isTrue();
        assertThat(second.getResult()).isGreaterThan(first.getResult());
        assertThat(FencepostLockProvider.currentLease()).as("after the task").isEmpty();
    }

    @Test
    void anotherInstanceSkipsTheTaskWhileItRuns() throws Throwable {
        String name = "report-" + UUID.randomUUID();
        LockConfiguration config = config(name, Duration.ofSeconds(30), Duration.ZERO);

        // Another thread: ShedLock's executor itself runs a nested task of the same name on one thread unlocked.
        ExecutorService otherInstance = Executors.newSingleThreadExecutor();
        AtomicBoolean ranElsewhere = new AtomicBoolean();
        AtomicBoolean ran = new AtomicBoolean();
        try {
            new DefaultLockingTaskExecutor(providerA)
                    .executeWithLock(
                            (LockingTaskExecutor.Task) () -> {
                                ran.set(true);
                                otherInstance
                                        .submit(() -> new DefaultLockingTaskExecutor(providerB)
                                                .executeWithLock((Runnable) () -> ranElsewhere.set(true), config))
                                        .get(10, TimeUnit.SECONDS);
                            },
                            config);
        } finally {
            otherInstance.shutdownNow();
        }

        assertThat(ran).isTrue();
        assertThat(ranElsewhere).as("the other instance ran the task too").isFalse();
        assertThat(providerB.lock(config))
                .as("free after the task")
                .isPresent()
                .get()
                .satisfies(SimpleLock::unlock);
    }

    @Test
    void lockAtLeastForKeepsTheTaskFromRunningElsewhereUntilItHasPassed() {
        String name = "report-" + UUID.randomUUID();
        Duration atLeast = Duration.ofSeconds(2);
        long start = System.nanoTime();
        SimpleLock lock =
                providerA.lock(config(name, Duration.ofSeconds(30), atLeast)).orElseThrow();
        lock.unlock();

        assertThat(providerB.lock(config(name, Duration.ofSeconds(30), Duration.ZERO)))
                .as("right after the unlock")
                .isEmpty();
        SimpleLock next = await().atMost(Duration.ofSeconds(10))
                .until(() -> providerB.lock(config(name, Duration.ofSeconds(30), Duration.ZERO)), Optional::isPresent)
                .orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(atLeast);
        next.unlock();
    }

    @Test
    void anExtensionKeepsTheLeaseAndRetiresTheOldLock() {
        String name = "report-" + UUID.randomUUID();
        SimpleLock lock = providerA
                .lock(config(name, Duration.ofSeconds(5), Duration.ZERO))
                .orElseThrow();
        Lease lease = FencepostLockProvider.currentLease(name).orElseThrow();
        Instant endBefore = lease.expiresAt();

        SimpleLock extended = lock.extend(Duration.ofSeconds(60), Duration.ZERO).orElseThrow();

        assertThat(lease.expiresAt()).isAfter(endBefore.plusSeconds(50));
        assertThat(FencepostLockProvider.currentLease(name)).contains(lease);
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(name);
        extended.unlock();
        assertThat(lease.isHeld()).isFalse();
        assertThat(locksB.inspect(name)).isEmpty();
        assertThatThrownBy(extended::unlock).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anExtensionsLockAtLeastForIsKeptByTheStoreAfterAnEarlyUnlock() {
        String name = "report-" + UUID.randomUUID();
        Duration atMost = Duration.ofSeconds(30);
        Duration atLeast = Duration.ofSeconds(2);
        SimpleLock lock = providerA.lock(config(name, atMost, Duration.ZERO)).orElseThrow();
        Lease lease = FencepostLockProvider.currentLease(name).orElseThrow();

        SimpleLock extended = lock.extend(atMost, atLeast).orElseThrow();
        Instant keptUntil = lease.expiresAt().minus(atMost).plus(atLeast);
        extended.unlock();

        assertThat(locksB.inspect(name))
                .as("the store keeps the key until the extension's lockAtLeastFor has passed, no timer of ours")
                .hasValueSatisfying(info -> assertThat(info.expiresAt()).isEqualTo(keptUntil));
        assertThat(providerB.lock(config(name, atMost, Duration.ZERO)))
                .as("right after the unlock")
                .isEmpty();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> providerB.lock(config(name, atMost, Duration.ZERO)), Optional::isPresent)
                .orElseThrow()
                .unlock();
    }

    @Test
    void aRunThatFindsTheLockBusyIsReportedAsSkippedNotAsNotAcquired() throws Throwable {
        List<Boolean> skipped = new CopyOnWriteArrayList<>();
        try (PostgresLockManager listened = PostgresLockManager.builder(db.dataSource())
                .listener(new LockListener() {
                    @Override
                    public void notAcquired(String name, String key, Duration waited, boolean skips) {
                        skipped.add(skips);
                    }
                })
                .build()) {
            String name = "report-" + UUID.randomUUID();
            LockConfiguration config = config(name, Duration.ofSeconds(30), Duration.ZERO);
            SimpleLock held = providerA.lock(config).orElseThrow();

            TaskResult<Object> result = new DefaultLockingTaskExecutor(new FencepostLockProvider(listened))
                    .executeWithLock(() -> "ran", config);
            held.unlock();

            assertThat(result.wasExecuted()).isFalse();
            assertThat(skipped).as("skipped, per notAcquired call").containsExactly(true);
        }
    }
}
