package io.fencepost.lock.reliability.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.reliability.support.Options;
import io.fencepost.lock.reliability.support.Pools;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The connection pool runs dry: locks fail clearly and quickly, nothing deadlocks, and all recovers. */
@Tag("full")
class PoolExhaustionTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private HikariDataSource pool;

    private PostgresLockManager locks;

    @BeforeEach
    void smallPool() {
        PostgresLockManager.create(db.dataSource()).close();
        pool = Pools.hikari(db.jdbcUrl(), "tiny-pool", 2, 500);
        locks = PostgresLockManager.builder(pool)
                .schemaMode(io.fencepost.lock.jdbc.SchemaMode.VALIDATE)
                .statementTimeout(Duration.ofSeconds(1))
                .build();
    }

    @AfterEach
    void close() {
        locks.close();
        pool.close();
    }

    @Test
    void withEveryConnectionTakenAcquireFailsWithinThePoolTimeoutNamingThePool() throws Exception {
        try (Connection a = pool.getConnection();
                Connection b = pool.getConnection()) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> locks.acquire("pool:busy", LockOptions.of(Duration.ofSeconds(5))))
                    .isInstanceOf(LockStoreException.class)
                    .hasMessageContaining("acquire lock 'pool:busy'")
                    .hasMessageContaining("Connection is not available")
                    .hasMessageContaining("pool");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        }
        try (Lease lease = locks.acquire("pool:busy", LockOptions.of(Duration.ofSeconds(5)))) {
            assertThat(lease.isHeld())
                    .as("the lock works again once connections are back")
                    .isTrue();
        }
    }

    @Test
    void aCallerHoldingThePoolsLastConnectionInItsTransactionGetsAnErrorNotADeadlock() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (Connection first = pool.getConnection();
                Connection second = pool.getConnection()) {
            first.setAutoCommit(false); // the caller's transaction, open while it asks for the lock
            Future<?> call = executor.submit(() -> locks.acquire("pool:tx", LockOptions.of(Duration.ofSeconds(5))));
            assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(LockStoreException.class);
            first.rollback();
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void aHeldLeaseWhoseRenewalCannotGetAConnectionIsReportedLostNotHung() throws Exception {
        Lease lease = locks.acquire("pool:renewal", LockOptions.of(Duration.ofMillis(1200)));
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(e -> lost.incrementAndGet());
        try (Connection a = pool.getConnection();
                Connection b = pool.getConnection()) {
            await().atMost(Duration.ofSeconds(3)).until(() -> lost.get() == 1);
            assertThat(lease.isHeld()).isFalse();
        }
        // The lease ran out in the database too: the key is free again.
        try (Lease next = await().atMost(Duration.ofSeconds(3))
                .until(
                        () -> locks.tryAcquire("pool:renewal", LockOptions.of(Duration.ofSeconds(5))),
                        o -> o.isPresent())
                .orElseThrow()) {
            assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
        }
    }

    @Test
    void manyThreadsContendingThroughATwoConnectionPoolAllFinishWithoutDeadlock() throws Exception {
        int threads = 12;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        AtomicInteger held = new AtomicInteger();
        AtomicInteger storeErrors = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                futures.add(executor.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        try (Lease lease = locks.acquire(
                                "pool:crowd:" + (i % 2),
                                Options.leaseAndWait(Duration.ofSeconds(5), Duration.ofSeconds(10)))) {
                            held.incrementAndGet();
                        } catch (LockStoreException e) {
                            storeErrors.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS); // a deadlock would time out here
            }
        } finally {
            executor.shutdownNow();
        }
        assertThat(held.get() + storeErrors.get()).isEqualTo(threads * 10);
        assertThat(held.get()).as("most critical sections ran").isGreaterThan(threads * 10 / 2);
    }
}
