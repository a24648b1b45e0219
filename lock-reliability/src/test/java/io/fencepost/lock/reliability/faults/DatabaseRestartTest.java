package io.fencepost.lock.reliability.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.reliability.support.LocalPostgres;
import io.fencepost.lock.reliability.support.Pools;
import io.fencepost.lock.spi.LockListener;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The database crashes (immediate shutdown, recovery from WAL) and comes back while a lease is held, while an
 * acquire waits inside the database, and while nobody can reach it. On a server of the test's own.
 */
@Tag("full")
class DatabaseRestartTest {

    private static LocalPostgres server;

    private static String url;

    private HikariDataSource pool;

    private HikariDataSource otherPool;

    private PostgresLockManager holder;

    private PostgresLockManager other;

    private final AtomicInteger renewals = new AtomicInteger();

    @BeforeAll
    static void startServer() {
        LocalPostgres.assumeAvailable();
        server = LocalPostgres.init("restart", Map.of()).start();
        url = server.jdbcUrl("postgres");
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void managers() {
        pool = Pools.hikari(url, "restart-holder", 4, 1_000);
        otherPool = Pools.hikari(url, "restart-other", 4, 1_000);
        holder = PostgresLockManager.builder(pool)
                .statementTimeout(Duration.ofSeconds(1))
                .holderName("holder")
                .listener(new LockListener() {
                    @Override
                    public void renewed(String name, Lease lease) {
                        renewals.incrementAndGet();
                    }
                })
                .build();
        other = PostgresLockManager.builder(otherPool)
                .statementTimeout(Duration.ofSeconds(1))
                .holderName("other")
                .build();
    }

    @AfterEach
    void close() {
        holder.close();
        other.close();
        pool.close();
        otherPool.close();
    }

    @Test
    void aLeaseHeldAcrossACrashKeepsItsTokenIsNotGrantedTwiceAndIsRenewedAgain() throws Exception {
        // Longer than the outage (crash, recovery, the pool's reconnect backoff): the lease must outlive it.
        LockOptions options = LockOptions.of(Duration.ofSeconds(15));
        Lease lease = holder.acquire("restart:held", options);
        long token = lease.fencingToken();

        server.crash();
        assertThatThrownBy(() -> other.acquire("restart:held", options))
                .as("with the database down, acquire fails closed")
                .isInstanceOf(LockStoreException.class);
        server.start();

        int before = renewals.get();
        await().atMost(Duration.ofSeconds(12)).until(() -> renewals.get() > before);
        assertThat(lease.isHeld()).as("the holder still holds the lease").isTrue();
        Optional<LeaseInfo> info = other.inspect("restart:held");
        assertThat(info).as("the grant survived the crash").isPresent();
        assertThat(info.get().fencingToken()).isEqualTo(token);
        assertThat(other.tryAcquire("restart:held", options))
                .as("nobody else gets the key")
                .isEmpty();

        assertThat(lease.release()).isTrue();
        try (Lease next = other.acquire("restart:held", options)) {
            assertThat(next.fencingToken()).isGreaterThan(token);
        }
    }

    @Test
    void anAcquireWaitingInsideTheDatabaseWhenItCrashesFailsClosedAndGrantsNothing() throws Exception {
        // An expired row whose lock a transaction holds: the next acquire of the key waits inside its statement.
        LockOptions shortLease = LockOptions.builder()
                .leaseTime(Duration.ofMillis(50))
                .renew(false)
                .build();
        long first = holder.acquire("restart:acquire", shortLease).fencingToken();
        Thread.sleep(100);
        // A statement timeout far longer than the test, so that only the crash can end the wait.
        try (PostgresLockManager patient = PostgresLockManager.builder(otherPool)
                        .statementTimeout(Duration.ofSeconds(60))
                        .build();
                Connection blocker = DriverManager.getConnection(url);
                Statement statement = blocker.createStatement()) {
            blocker.setAutoCommit(false);
            statement.execute("SELECT * FROM distributed_lock WHERE lock_key = 'restart:acquire' FOR UPDATE");

            CompletableFuture<Lease> acquire = CompletableFuture.supplyAsync(
                    () -> patient.acquire("restart:acquire", LockOptions.of(Duration.ofSeconds(30))));
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> Pools.queryLong(
                                    url,
                                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'restart-other'"
                                            + " AND wait_event_type = 'Lock'",
                                    0)
                            == 1);
            server.crash();

            assertThatThrownBy(() -> acquire.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(LockStoreException.class);
            assertThat(patient.heldLeases())
                    .as("the failed acquire left no lease")
                    .isEmpty();
        } catch (java.sql.SQLException expected) {
            // closing the blocker's connection, which died with the server
        }
        server.start();

        Lease next = await().atMost(Duration.ofSeconds(10))
                .ignoreExceptionsInstanceOf(LockStoreException.class)
                .until(() -> holder.acquire("restart:acquire", LockOptions.of(Duration.ofSeconds(5))), l -> true);
        assertThat(next.fencingToken()).as("tokens keep increasing").isGreaterThan(first);
        next.release();
    }
}
