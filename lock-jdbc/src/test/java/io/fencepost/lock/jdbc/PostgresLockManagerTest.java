package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.jdbc.test.CloseAfterEach;
import io.fencepost.lock.jdbc.test.CountingDataSource;
import io.fencepost.lock.jdbc.test.FixedPool;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.jdbc.test.ProxiedPool;
import io.fencepost.lock.jdbc.test.TcpProxy;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/** The foundation's acceptance criteria for {@link PostgresLockManager} on a real PostgreSQL. */
@Tag("server-version")
class PostgresLockManagerTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private static final LockOptions HOLD = LockOptions.of(Duration.ofMinutes(5));

    @RegisterExtension
    final CloseAfterEach closer = new CloseAfterEach();

    private PostgresLockManager manager(PostgresLockManager.Builder builder) {
        return closer.add(builder.build());
    }

    /** Unpooled connections whose statements and round trips are counted on the wire. */
    private CountingDataSource countingConnections() {
        PGSimpleDataSource physical = new PGSimpleDataSource();
        physical.setURL(db.jdbcUrl());
        return new CountingDataSource(physical);
    }

    /** A fixed-size pool over {@code target}, closed after the test. */
    private HikariDataSource pool(javax.sql.DataSource target, int size) {
        return closer.add(FixedPool.over(target, size));
    }

    private static String key() {
        return "pg:" + UUID.randomUUID();
    }

    @Test
    void expiryIsDecidedByTheDatabaseClockAlone() {
        // The engine reads no wall clock: two clients see the same lease, whatever their JVMs' clocks say.
        LockManager ahead = manager(PostgresLockManager.builder(db.dataSource()));
        LockManager behind = manager(PostgresLockManager.builder(db.dataSource()));
        LockOptions shortLease = LockOptions.builder()
                .leaseTime(Duration.ofMillis(800))
                .renew(false)
                .build();
        String key = key();

        Lease first = ahead.acquire(key, shortLease);
        long grantedAt = System.nanoTime();

        // Neither client may think the lease long expired, nor still running after its lease time.
        assertThat(behind.tryAcquire(key, HOLD)).isEmpty();
        LeaseInfo info = behind.inspect(key).orElseThrow();
        assertThat(Duration.between(info.acquiredAt(), info.expiresAt())).isEqualTo(Duration.ofMillis(800));
        Lease second = await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> behind.tryAcquire(key, HOLD).orElse(null), lease -> lease != null);
        assertThat(Duration.ofNanos(System.nanoTime() - grantedAt)).isGreaterThanOrEqualTo(Duration.ofMillis(700));
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(first.release()).isFalse();
        assertThat(ahead.tryAcquire(key, HOLD)).isEmpty();
        assertThat(second.release()).isTrue();
    }

    @Test
    void anUncontendedCycleCostsTwoStatementsAndReentryCostsNone() {
        CountingDataSource counting = countingConnections();
        HikariDataSource pool = pool(counting, 2);
        LockManager locks = manager(PostgresLockManager.builder(pool));
        String key = key();
        locks.acquire(key, HOLD).release(); // warm up: schema check and pool connections are not the subject

        counting.reset();
        Lease lease = locks.acquire(key, HOLD);
        int afterAcquire = counting.statements();
        Lease reentered = locks.acquire(key, HOLD);
        assertThat(counting.statements()).as("a reentrant acquire").isEqualTo(afterAcquire);
        reentered.release();
        lease.release();

        assertThat(counting.statements())
                .as("statements %s", counting.executedSql())
                .isEqualTo(2);
        assertThat(counting.roundTrips()).as("round trips").isEqualTo(2);
    }

    @Test
    void aLocalHandOffIsOneStatementAndAWaiterElsewhereIsStillWokenByTheNextRelease() throws Exception {
        CountingDataSource counting = countingConnections();
        HikariDataSource pool = pool(counting, 4);
        LockManager locks = manager(PostgresLockManager.builder(pool));
        String key = key();
        locks.acquire(key, HOLD).release(); // creates the schema
        // Another client whose waiter can only be woken in time by a notification: it would poll every 5 minutes.
        PostgresLeaseStore otherStore = closer.add(
                new PostgresLeaseStore(db.dataSource(), PostgresLockManager.DEFAULT_TABLE_NAME, Duration.ofSeconds(5)));
        io.fencepost.lock.core.DefaultLockManager elsewhere =
                closer.add(io.fencepost.lock.core.DefaultLockManager.builder(otherStore)
                        .pushFallback(Duration.ofMinutes(5))
                        .retryBackoff(Duration.ofMinutes(5), Duration.ofMinutes(5))
                        .build());
        LockOptions wait = HOLD.toBuilder().waitTime(Duration.ofMinutes(1)).build();

        Lease first = locks.acquire(key, HOLD);
        java.util.concurrent.CompletableFuture<Lease> remote =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> elsewhere.acquire(key, wait));
        await().until(() -> contended(key));
        java.util.concurrent.CountDownLatch releaseSecond = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CompletableFuture<Long> second = new java.util.concurrent.CompletableFuture<>();
        Thread local = new Thread(() -> {
            try (Lease lease = locks.acquire(key, wait)) {
                second.complete(lease.fencingToken());
                releaseSecond.await();
            } catch (Exception e) {
                second.completeExceptionally(e);
            }
        });
        local.start();
        await().until(() -> local.getState() == Thread.State.TIMED_WAITING);

        counting.reset();
        first.release();
        long secondToken = second.get(10, java.util.concurrent.TimeUnit.SECONDS);

        assertThat(counting.executedSql().stream()
                        .filter(sql -> !sql.startsWith("LISTEN") && !sql.equals("SELECT 1"))
                        .toList())
                .as("the hand-over from the first holder to the local waiter")
                .singleElement()
                .satisfies(sql -> assertThat(sql).startsWith("WITH handed AS"));
        assertThat(secondToken).isGreaterThan(first.fencingToken());
        assertThat(remote).isNotDone();
        assertThat(contended(key)).as("the waiter elsewhere is still on record").isTrue();

        long released = System.nanoTime();
        releaseSecond.countDown();
        Lease remoteLease = remote.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(30));
        assertThat(remoteLease.fencingToken()).isGreaterThan(secondToken);
        remoteLease.release();
    }

    private boolean contended(String key) throws Exception {
        try (Connection connection = db.dataSource().getConnection();
                java.sql.PreparedStatement statement =
                        connection.prepareStatement("SELECT contended FROM distributed_lock WHERE lock_key = ?")) {
            statement.setString(1, key);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() && rows.getBoolean(1);
            }
        }
    }

    @Test
    void badInputIsRejectedBeforeAnyStatementReachesTheDatabase() {
        CountingDataSource counting = countingConnections();
        LockManager locks = manager(PostgresLockManager.builder(counting));
        counting.reset();

        assertThatThrownBy(() -> locks.acquire(null, HOLD)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locks.acquire(" ", HOLD)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locks.tryAcquire("x".repeat(256), HOLD))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("was 256");
        assertThatThrownBy(() -> locks.acquire("k", LockOptions.of(Duration.ofMillis(-1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-0.001S");
        assertThatThrownBy(() ->
                        LockOptions.builder().waitTime(Duration.ofSeconds(-2)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-2S");

        assertThat(counting.statements()).isZero();
    }

    @Test
    void aLockTakenInsideTheCallersTransactionIsVisibleAtOnceAndSurvivesItsRollback() throws Exception {
        LockManager locks = manager(PostgresLockManager.builder(db.dataSource()));
        LockManager other = manager(PostgresLockManager.builder(db.dataSource()));
        String key = key();

        try (Connection business = db.dataSource().getConnection()) {
            business.setAutoCommit(false);
            try (Statement statement = business.createStatement()) {
                statement.execute("CREATE TEMP TABLE caller_work (id int)");
                statement.execute("INSERT INTO caller_work VALUES (1)");
            }
            Lease lease = locks.acquire(key, HOLD);

            assertThat(other.inspect(key)).map(LeaseInfo::fencingToken).contains(lease.fencingToken());
            assertThat(other.tryAcquire(key, HOLD)).isEmpty();

            business.rollback();
            assertThat(other.inspect(key)).as("the lease is not rolled back").isPresent();
            assertThat(lease.release()).isTrue();
            assertThat(other.inspect(key)).isEmpty();
            business.setAutoCommit(true);
        }
    }

    @Test
    void aPoolHandingOutNonAutocommitConnectionsStillCommitsEachLockStatement() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.jdbcUrl());
        config.setAutoCommit(false);
        config.setMaximumPoolSize(2);
        HikariDataSource manualCommitPool = closer.add(new HikariDataSource(config));
        LockManager locks = manager(PostgresLockManager.builder(manualCommitPool));
        LockManager other = manager(PostgresLockManager.builder(db.dataSource()));
        String key = key();

        Lease lease = locks.acquire(key, HOLD);

        assertThat(other.inspect(key)).isPresent();
        assertThat(lease.release()).isTrue();
        assertThat(other.inspect(key)).isEmpty();
    }

    @Test
    void withTheDatabaseRefusingConnectionsAcquireFailsClosedAtOnce() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        LockManager working = manager(PostgresLockManager.builder(db.dataSource()));
        PGSimpleDataSource unreachable = new PGSimpleDataSource();
        unreachable.setServerNames(new String[] {"127.0.0.1"});
        unreachable.setPortNumbers(new int[] {closedPort});
        unreachable.setDatabaseName("nowhere");
        PostgresLockManager locks = manager(PostgresLockManager.builder(unreachable)
                .schemaMode(SchemaMode.NONE)
                .statementTimeout(Duration.ofSeconds(2)));
        long start = System.nanoTime();

        assertThatThrownBy(() -> locks.acquire("unreachable", HOLD))
                .isInstanceOf(LockStoreException.class)
                .hasMessageContaining("unreachable");

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(locks.heldLeases()).isEmpty();
        assertThat(working.inspect("unreachable")).isEmpty();
    }

    @Test
    void withTheDatabaseStalledMidStatementAcquireFailsWithinTheStatementTimeout() throws Exception {
        ProxiedPool pool = closer.add(new ProxiedPool(db, config -> {
            config.setMaximumPoolSize(2);
            config.setMinimumIdle(2);
            config.setConnectionTimeout(1_000);
        }));
        TcpProxy proxy = pool.proxy();
        PostgresLockManager locks =
                manager(PostgresLockManager.builder(pool.dataSource()).statementTimeout(Duration.ofMillis(1500)));
        LockManager direct = manager(PostgresLockManager.builder(db.dataSource()));
        String key = key();
        locks.acquire(key(), HOLD).release(); // the pool's connection is established through the proxy

        proxy.stall();
        long start = System.nanoTime();
        assertThatThrownBy(() -> locks.acquire(key, LockOptions.of(Duration.ofSeconds(2))))
                .isInstanceOf(LockStoreException.class);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(took).isBetween(Duration.ofMillis(1000), Duration.ofSeconds(5));
        assertThat(locks.heldLeases()).as("nothing is reported held").isEmpty();
        proxy.resume();
        // The stalled statement may still reach the server and commit a grant nobody knows of: it only keeps
        // the key until its lease runs out.
        assertThat(direct.tryAcquire(
                        key,
                        LockOptions.builder()
                                .leaseTime(Duration.ofSeconds(5))
                                .waitTime(Duration.ofSeconds(10))
                                .build()))
                .isPresent();
    }

    @Test
    void anOrdinaryRoleThatOwnsOnlyItsSchemaCanCreateTheTableAndLock() throws Exception {
        String role = "fp_app_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String password = UUID.randomUUID().toString();
        try (Connection admin = db.adminDataSource().getConnection();
                Statement statement = admin.createStatement()) {
            statement.execute(
                    "CREATE ROLE " + role + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '" + password + "'");
            statement.execute("CREATE SCHEMA " + role + " AUTHORIZATION " + role);
            statement.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
        }
        try {
            PGSimpleDataSource asRole = new PGSimpleDataSource();
            asRole.setURL(db.jdbcUrl());
            asRole.setUser(role);
            asRole.setPassword(password);
            asRole.setCurrentSchema(role);
            try (PostgresLockManager locks = PostgresLockManager.create(asRole);
                    PostgresLockManager other = PostgresLockManager.create(asRole)) {
                Lease lease = locks.acquire("role:key", LockOptions.of(Duration.ofMillis(600)));
                await().during(Duration.ofMillis(900))
                        .atMost(Duration.ofSeconds(5))
                        .until(() -> other.tryAcquire("role:key", HOLD).isEmpty());
                assertThat(lease.isHeld()).as("renewed as the ordinary role").isTrue();
                assertThat(lease.release()).isTrue();
                assertThat(other.acquire("role:key", HOLD).fencingToken()).isGreaterThan(lease.fencingToken());
            }
            try (Connection admin = db.adminDataSource().getConnection();
                    Statement statement = admin.createStatement();
                    ResultSet rs = statement.executeQuery("SELECT count(*) FROM pg_tables WHERE schemaname = '" + role
                            + "' AND tablename = 'distributed_lock'")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(1);
            }
        } finally {
            try (Connection admin = db.adminDataSource().getConnection();
                    Statement statement = admin.createStatement()) {
                statement.execute("DROP SCHEMA " + role + " CASCADE");
                statement.execute("DROP OWNED BY " + role);
                statement.execute("DROP ROLE " + role);
            }
        }
    }
}
