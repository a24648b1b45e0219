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
import io.fencepost.lock.spi.LockListener;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code pg_terminate_backend} of the lock connections: during a hold, mid-acquire, and of the LISTEN connection. */
@Tag("full")
class BackendTerminationTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private HikariDataSource pool;

    private PostgresLockManager locks;

    private PostgresLockManager other;

    private final AtomicInteger renewals = new AtomicInteger();

    @BeforeEach
    void managers() {
        pool = Pools.hikari(db.jdbcUrl(), "terminated-locks", 6, 2_000);
        locks = PostgresLockManager.builder(pool)
                .statementTimeout(Duration.ofSeconds(2))
                .listener(new LockListener() {
                    @Override
                    public void renewed(String name, Lease lease) {
                        renewals.incrementAndGet();
                    }
                })
                .build();
        other = PostgresLockManager.builder(db.dataSource()).build();
    }

    @AfterEach
    void close() {
        locks.close();
        other.close();
        pool.close();
    }

    @Test
    void terminatingTheLockConnectionsOverAndOverDoesNotCostAHeldLease() {
        Lease lease = locks.acquire("terminate:held", LockOptions.of(Duration.ofMillis(1500)));
        for (int round = 0; round < 6; round++) {
            Pools.terminate(db.jdbcUrl(), "terminated-locks");
            int before = renewals.get();
            await().atMost(Duration.ofSeconds(3)).until(() -> renewals.get() > before);
        }
        assertThat(lease.isHeld()).isTrue();
        assertThat(other.inspect("terminate:held"))
                .hasValueSatisfying(info -> assertThat(info.fencingToken()).isEqualTo(lease.fencingToken()));
        assertThat(other.tryAcquire("terminate:held", LockOptions.of(Duration.ofSeconds(1))))
                .isEmpty();
        assertThat(lease.release()).isTrue();
    }

    @Test
    void aBackendTerminatedMidAcquireFailsTheAcquireClosedAndTheKeyStaysUsable() throws Exception {
        LockOptions shortLease = LockOptions.builder()
                .leaseTime(Duration.ofMillis(50))
                .renew(false)
                .build();
        long first = other.acquire("terminate:acquire", shortLease).fencingToken();
        Thread.sleep(100);
        try (Connection blocker = db.adminDataSource().getConnection();
                Statement statement = blocker.createStatement()) {
            blocker.setAutoCommit(false);
            statement.execute("SELECT * FROM distributed_lock WHERE lock_key = 'terminate:acquire' FOR UPDATE");
            CompletableFuture<Lease> acquire = CompletableFuture.supplyAsync(
                    () -> locks.acquire("terminate:acquire", LockOptions.of(Duration.ofSeconds(30))));
            await().atMost(Duration.ofSeconds(2))
                    .until(() -> Pools.queryLong(
                                    db.jdbcUrl(),
                                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'terminated-locks'"
                                            + " AND wait_event_type = 'Lock'",
                                    0)
                            == 1);
            Pools.terminate(db.jdbcUrl(), "terminated-locks");
            assertThatThrownBy(() -> acquire.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(LockStoreException.class)
                    .hasMessageContaining("terminate:acquire");
            blocker.rollback();
        }
        assertThat(locks.heldLeases()).isEmpty();
        // The pool may hand out another of its terminated connections first: that attempt fails closed too.
        Lease lease = await().atMost(Duration.ofSeconds(5))
                .ignoreExceptionsInstanceOf(LockStoreException.class)
                .until(() -> locks.acquire("terminate:acquire", LockOptions.of(Duration.ofSeconds(5))), l -> true);
        assertThat(lease.fencingToken()).isGreaterThan(first);
        lease.release();
    }

    @Test
    void aWaiterWhoseListenConnectionWasTerminatedStillGetsTheKey() throws Exception {
        Lease held = other.acquire("terminate:listen", LockOptions.of(Duration.ofSeconds(10)));
        CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() ->
                locks.acquire("terminate:listen", Options.leaseAndWait(Duration.ofSeconds(5), Duration.ofSeconds(8))));
        long listener = Pools.awaitListener(db.jdbcUrl(), "terminated-locks");
        Pools.terminate(db.jdbcUrl(), "terminated-locks");
        Pools.awaitGone(db.jdbcUrl(), listener); // the release's notification may now be lost
        long releasedAt = System.nanoTime();
        assertThat(held.release()).isTrue();
        Lease lease = waiter.get(9, TimeUnit.SECONDS);
        assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(Duration.ofNanos(System.nanoTime() - releasedAt))
                .as("the waiter got the key within its push fallback, not at the end of its wait")
                .isLessThan(Duration.ofSeconds(3));
        lease.release();
    }
}
