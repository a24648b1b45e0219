package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A transaction bound to a lease with {@link JdbcLeaseGuard}, on PostgreSQL: it commits only while its lease is
 * held, under both isolation levels, and grants of the key wait for it to end.
 */
@Tag("server-version")
class JdbcLeaseGuardTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase(20);

    /** A database without fencepost's schema. */
    @RegisterExtension
    static PostgresTestDatabase other = new PostgresTestDatabase(2);

    private static final String KEY = "account:1";

    private final JdbcLeaseGuard guard = new JdbcLeaseGuard();

    private PostgresLockManager a;

    private PostgresLockManager b;

    @BeforeEach
    void schemaAndAccount() throws SQLException {
        PostgresLockManager.create(db.dataSource()).close();
        db.execute("DROP TABLE IF EXISTS account, ledger;"
                + " CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL);"
                + " CREATE TABLE ledger (id bigserial PRIMARY KEY, entry text NOT NULL);"
                + " INSERT INTO account VALUES (1, 100); DELETE FROM distributed_lock;");
        a = manager("A");
        b = manager("B");
    }

    @AfterEach
    void closeManagers() {
        a.close();
        b.close();
    }

    private static PostgresLockManager manager(String holder) {
        return PostgresLockManager.builder(db.dataSource())
                .holderName(holder)
                .schemaMode(SchemaMode.NONE)
                .build();
    }

    @Test
    void aPausedHoldersWholeTransactionRollsBackAndTheNewHoldersWriteStands() throws Exception {
        assertThat(pausedHolderRun(true))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("account:1")
                .hasMessageContaining("roll the transaction back");
        assertThat(balance()).as("B's deposit stands").isEqualTo(150);
        assertThat(ledger())
                .as("A's ledger entry was rolled back with its transaction")
                .containsExactly("B +50");
    }

    @Test
    void withoutTheGuardThePausedHolderLosesTheNewHoldersUpdate() throws Exception {
        assertThat(pausedHolderRun(false)).isNull();
        assertThat(balance()).as("A overwrote B's deposit with its stale read").isEqualTo(70);
    }

    /**
     * A reads the balance and writes a ledger entry in its transaction, then freezes past its lease (its manager
     * stops: no renewal, no watchdog); B takes the key over, deposits 50 and commits; A wakes, writes the balance it
     * computed before the pause and commits, bound to its lease or not. Returns what A's commit threw.
     */
    private Throwable pausedHolderRun(boolean bound) throws Exception {
        Lease leaseA = a.acquire(KEY, LockOptions.of(Duration.ofMillis(500)));
        a.close(); // A will freeze: no renewal, no watchdog from here on
        try (Connection txA = db.dataSource().getConnection()) {
            txA.setAutoCommit(false);
            long seenByA = balance(txA);
            insertLedger(txA, "A -30");

            try (Lease leaseB = b.acquire(
                    KEY, LockOptions.builder().waitTime(Duration.ofSeconds(10)).build())) {
                assertThat(leaseB.fencingToken()).isGreaterThan(leaseA.fencingToken());
                try (Connection txB = db.dataSource().getConnection()) {
                    txB.setAutoCommit(false);
                    setBalance(txB, balance(txB) + 50);
                    insertLedger(txB, "B +50");
                    guard.holdUntilCommit(txB, leaseB);
                    txB.commit();
                }
            }

            try {
                setBalance(txA, seenByA - 30);
                if (bound) {
                    guard.holdUntilCommit(txA, leaseA);
                }
                txA.commit();
                return null;
            } catch (SQLException | RuntimeException e) {
                txA.rollback();
                return e;
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ})
    void aTransactionThatOutlivesTheExpiryItsSnapshotShowsCommitsWhileRenewalKeepsTheLease(int isolation)
            throws Exception {
        try (Lease lease = a.acquire(KEY, LockOptions.of(Duration.ofMillis(600)));
                Connection tx = db.dataSource().getConnection()) {
            tx.setTransactionIsolation(isolation);
            tx.setAutoCommit(false);
            Instant expirySeen = expiresAt(tx); // REPEATABLE READ: the snapshot's expiry from here on
            setBalance(tx, 42);

            // Renewal moves the row on; by the database clock, the expiry the snapshot shows passes.
            await().atMost(Duration.ofSeconds(10)).until(() -> databaseNow().isAfter(expirySeen.plusMillis(100)));
            assertThat(lease.isHeld()).isTrue();

            guard.holdUntilCommit(tx, lease);
            tx.commit();
        }
        assertThat(balance()).isEqualTo(42);
    }

    @ParameterizedTest
    @ValueSource(ints = {Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ})
    void aTakeOverAfterTheTransactionsSnapshotIsSeenAtEitherLevel(int isolation) throws Exception {
        Lease stale = a.acquire(KEY, LockOptions.of(Duration.ofMillis(300)));
        a.close(); // A freezes: no renewal, no watchdog
        try (Connection tx = db.dataSource().getConnection()) {
            tx.setTransactionIsolation(isolation);
            tx.setAutoCommit(false);
            expiresAt(tx); // the snapshot shows A's grant
            setBalance(tx, 1);
            try (Lease fresh = b.acquire(
                    KEY, LockOptions.builder().waitTime(Duration.ofSeconds(10)).build())) {
                assertThatThrownBy(() -> guard.holdUntilCommit(tx, stale))
                        .isInstanceOf(LeaseLostException.class)
                        .hasMessageContaining("roll the transaction back");
                tx.rollback();
                assertThat(fresh.isHeld()).isTrue();
            }
        }
        assertThat(balance()).isEqualTo(100);
    }

    @ParameterizedTest
    @ValueSource(ints = {Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ})
    void aForceReleasedLeaseCannotCommit(int isolation) throws Exception {
        Lease lease = a.acquire(KEY, LockOptions.of(Duration.ofSeconds(30)));
        try (Connection tx = db.dataSource().getConnection()) {
            tx.setTransactionIsolation(isolation);
            tx.setAutoCommit(false);
            expiresAt(tx);
            setBalance(tx, 1);
            assertThat(b.forceRelease(KEY)).isTrue();

            assertThatThrownBy(() -> guard.holdUntilCommit(tx, lease)).isInstanceOf(LeaseLostException.class);
            tx.rollback();
        }
        assertThat(balance()).isEqualTo(100);
    }

    @Test
    void aForcedReleaseAfterTheCheckWaitsForTheTransactionToEnd() throws Exception {
        Lease lease = a.acquire(KEY, LockOptions.of(Duration.ofSeconds(30)));
        CompletableFuture<Boolean> forced;
        try (Connection tx = db.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            setBalance(tx, 7);
            guard.holdUntilCommit(tx, lease);

            forced = CompletableFuture.supplyAsync(() -> b.forceRelease(KEY));
            await().atMost(Duration.ofSeconds(10)).until(JdbcLeaseGuardTest::aBackendWaitsForALock);
            assertThat(forced)
                    .as("the forced release waits for the bound transaction")
                    .isNotDone();
            tx.commit();
        }
        assertThat(forced.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(balance()).isEqualTo(7);
    }

    @Test
    void aGrantOfTheKeyWaitsForTheBoundTransactionAndSeesItsWrites() throws Exception {
        Lease lease = unrenewed(Duration.ofSeconds(4));
        CompletableFuture<Long> seenByB;
        try (Connection tx = db.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            setBalance(tx, 8);
            guard.holdUntilCommit(tx, lease);

            seenByB = CompletableFuture.supplyAsync(() -> {
                try (Lease fresh = b.acquire(
                        KEY,
                        LockOptions.builder().waitTime(Duration.ofSeconds(10)).build())) {
                    return balance();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            // B's attempt waits on the lease row's lock until A's transaction ends; then B waits for A's expiry.
            await().atMost(Duration.ofSeconds(10)).until(JdbcLeaseGuardTest::aBackendWaitsForALock);
            assertThat(seenByB).isNotDone();
            tx.commit();
        }
        assertThat(seenByB.get(10, TimeUnit.SECONDS)).isEqualTo(8);
    }

    @Test
    void aLeaseHandedOverLocallyBindsItsNewHoldersTransactionAndNotTheFormerOnes() throws Exception {
        Lease first = a.acquire(KEY, LockOptions.of(Duration.ofSeconds(30)));
        CompletableFuture<Lease> second = waiterOn(a);
        first.release();
        Lease handed = second.get(10, TimeUnit.SECONDS);
        try {
            assertThat(handed.fencingToken()).isGreaterThan(first.fencingToken());
            try (Connection tx = db.dataSource().getConnection()) {
                tx.setAutoCommit(false);
                setBalance(tx, 9);
                assertThatThrownBy(() -> guard.holdUntilCommit(tx, first))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("was released");
                guard.holdUntilCommit(tx, handed);
                tx.commit();
            }
        } finally {
            handed.release();
        }
        assertThat(balance()).isEqualTo(9);
    }

    @Test
    void aHandOverOfTheBoundLeaseWaitsForTheTransactionToEnd() throws Exception {
        Lease first = a.acquire(KEY, LockOptions.of(Duration.ofSeconds(30)));
        CompletableFuture<Lease> second = waiterOn(a);
        try (Connection tx = db.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            setBalance(tx, 10);
            guard.holdUntilCommit(tx, first);

            // released from another thread while the transaction is open: the hand-over changes the row's key
            CompletableFuture<Boolean> released = CompletableFuture.supplyAsync(first::release);
            await().atMost(Duration.ofSeconds(10)).until(JdbcLeaseGuardTest::aBackendWaitsForALock);
            assertThat(second)
                    .as("the hand-over waits for the bound transaction")
                    .isNotDone();
            tx.commit();
            assertThat(released.get(10, TimeUnit.SECONDS)).isTrue();
        }
        Lease handed = second.get(10, TimeUnit.SECONDS);
        assertThat(handed.fencingToken()).isGreaterThan(first.fencingToken());
        handed.release();
        assertThat(balance()).isEqualTo(10);
    }

    /** A thread of {@code manager} that waits for the key, parked in the manager's line for it. */
    private static CompletableFuture<Lease> waiterOn(PostgresLockManager manager) {
        CompletableFuture<Lease> lease = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                lease.complete(manager.acquire(
                        KEY,
                        LockOptions.builder().waitTime(Duration.ofSeconds(10)).build()));
            } catch (RuntimeException e) {
                lease.completeExceptionally(e);
            }
        });
        waiter.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
        return lease;
    }

    @Test
    void eitherHoldOfAReentrantLeaseBindsTheTransaction() throws Exception {
        try (Lease outer = a.acquire(KEY, LockOptions.of(Duration.ofSeconds(30)));
                Lease inner = a.acquire(KEY, LockOptions.of(Duration.ofSeconds(30)));
                Connection tx = db.dataSource().getConnection()) {
            assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
            tx.setAutoCommit(false);
            setBalance(tx, 11);
            guard.holdUntilCommit(tx, inner);
            guard.holdUntilCommit(tx, outer);
            tx.commit();
        }
        assertThat(balance()).isEqualTo(11);
    }

    @Test
    void aNullOrReleasedLeaseIsRefusedAndNothingCommits() throws Exception {
        Lease released = a.acquire(KEY, LockOptions.of(Duration.ofSeconds(30)));
        released.release();
        try (Connection tx = db.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            setBalance(tx, 1);
            assertThatThrownBy(() -> guard.holdUntilCommit(tx, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lease must not be null");
            assertThatThrownBy(() -> guard.holdUntilCommit(tx, released))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'account:1'")
                    .hasMessageContaining("was released");
            assertThatThrownBy(() -> guard.holdUntilCommit(null, released))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("transaction must not be null");
            tx.rollback();
        }
        assertThat(balance()).isEqualTo(100);
    }

    @Test
    void aSharedLeaseIsRefused() throws Exception {
        try (Lease shared = a.acquire(KEY, LockOptions.builder().shared(true).build());
                Connection tx = db.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            assertThatThrownBy(() -> guard.holdUntilCommit(tx, shared))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("exclusive lease")
                    .hasMessageContaining("SHARED");
            tx.rollback();
        }
    }

    @Test
    void anAutocommitConnectionIsRefusedBeforeAnythingRuns() throws Exception {
        try (Lease lease = a.acquire(KEY, LockOptions.of(Duration.ofSeconds(30)));
                Connection connection = db.dataSource().getConnection()) {
            setBalance(connection, 5);
            assertThatThrownBy(() -> guard.holdUntilCommit(connection, lease))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("autocommit");
            assertThat(advisoryLocksHeld(connection))
                    .as("the guard took no lock")
                    .isZero();
        }
    }

    @Test
    void aConnectionToAnotherDatabaseIsRefusedAndNothingCommits() throws Exception {
        try (Connection setUp = other.dataSource().getConnection();
                Statement statement = setUp.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS note (text text)");
        }
        try (Lease lease = a.acquire(KEY, LockOptions.of(Duration.ofSeconds(30)));
                Connection tx = other.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            try (Statement statement = tx.createStatement()) {
                statement.execute("INSERT INTO note VALUES ('written')");
            }
            assertThatThrownBy(() -> guard.holdUntilCommit(tx, lease))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no lock table 'distributed_lock'");
            tx.rollback();
        }
        try (Connection check = other.dataSource().getConnection();
                Statement statement = check.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM note")) {
            rows.next();
            assertThat(rows.getLong(1)).isZero();
        }
    }

    @Test
    void aTransactionLeftIdleAfterTheCheckIsEndedByTheServerWithinTheRemainingLease() throws Exception {
        Lease lease = unrenewed(Duration.ofMillis(800));
        try (Connection tx = db.unpooledDataSource().getConnection()) {
            tx.setAutoCommit(false);
            setBalance(tx, 13);
            guard.holdUntilCommit(tx, lease);
            long checked = System.nanoTime();

            try (Lease fresh = b.acquire(
                    KEY, LockOptions.builder().waitTime(Duration.ofSeconds(10)).build())) {
                long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - checked);
                assertThat(waitedMillis)
                        .as("B was granted within A's remaining lease plus 1 s")
                        .isLessThan(1_800);
                assertThat(fresh.fencingToken()).isGreaterThan(lease.fencingToken());
            }
            assertThatThrownBy(tx::commit).isInstanceOf(SQLException.class);
        }
        assertThat(balance()).isEqualTo(100);
    }

    @Test
    void aTransactionThatKeepsRunningStatementsAfterTheCheckIsEndedWithinTheRemainingLeaseOnPostgres17()
            throws Exception {
        Lease lease = unrenewed(Duration.ofMillis(800));
        try (Connection tx = db.unpooledDataSource().getConnection()) {
            assumeTrue(
                    tx.getMetaData().getDatabaseMajorVersion() >= 17,
                    "transaction_timeout needs PostgreSQL 17+ (the version matrix runs this)");
            tx.setAutoCommit(false);
            setBalance(tx, 13);
            guard.holdUntilCommit(tx, lease);
            long checked = System.nanoTime();

            // Short statements, never idle and each well inside statement_timeout: only the transaction's own bound
            // can end this before the lease does.
            SQLException ended = null;
            while (ended == null && System.nanoTime() - checked < TimeUnit.SECONDS.toNanos(10)) {
                try (Statement statement = tx.createStatement()) {
                    statement.execute("SELECT pg_sleep(0.02)");
                } catch (SQLException e) {
                    ended = e;
                }
            }
            assertThat((Throwable) ended).as("the server ended the transaction").isNotNull();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - checked))
                    .as("within the remaining lease plus 1 s")
                    .isLessThan(1_800);
        }
        assertThat(balance()).isEqualTo(100);
    }

    @Test
    void theCheckBoundsTheTransactionByTheRemainingLeaseButNeverRaisesALowerBound() throws Exception {
        try (Lease lease = a.acquire(KEY, LockOptions.of(Duration.ofSeconds(30)));
                Connection tx = db.unpooledDataSource().getConnection()) {
            try (Statement statement = tx.createStatement()) {
                statement.execute("SET idle_in_transaction_session_timeout = '20s'");
            }
            tx.setAutoCommit(false);
            guard.holdUntilCommit(tx, lease);
            assertThat(settingMillis(tx, "idle_in_transaction_session_timeout")).isEqualTo(20_000);
            assertThat(settingMillis(tx, "statement_timeout")).isBetween(20_000L, 30_000L);
            tx.commit();
            assertThat(settingMillis(tx, "statement_timeout"))
                    .as("for that transaction only")
                    .isZero();
        }
    }

    /** A lease of A's on the key that is not renewed: it ends after {@code leaseTime} whatever the holder does. */
    private Lease unrenewed(Duration leaseTime) {
        return a.acquire(
                KEY, LockOptions.builder().leaseTime(leaseTime).renew(false).build());
    }

    private static long settingMillis(Connection connection, String name) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT ceil(extract(epoch FROM current_setting(?)::interval) * 1000)::bigint")) {
            select.setString(1, name);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    private static boolean aBackendWaitsForALock() throws SQLException {
        try (Connection connection = db.adminDataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_stat_activity"
                        + " WHERE datname = current_database() AND wait_event_type = 'Lock'")) {
            rows.next();
            return rows.getLong(1) > 0;
        }
    }

    private static long advisoryLocksHeld(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static Instant expiresAt(Connection tx) throws SQLException {
        try (PreparedStatement select =
                tx.prepareStatement("SELECT expires_at FROM distributed_lock WHERE lock_key = ?")) {
            select.setString(1, KEY);
            try (ResultSet rows = select.executeQuery()) {
                assertThat(rows.next()).isTrue();
                return rows.getTimestamp(1).toInstant();
            }
        }
    }

    private static Instant databaseNow() throws SQLException {
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT clock_timestamp()")) {
            rows.next();
            Timestamp now = rows.getTimestamp(1);
            return now.toInstant();
        }
    }

    private static long balance() throws SQLException {
        try (Connection connection = db.dataSource().getConnection()) {
            return balance(connection);
        }
    }

    private static long balance(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT balance FROM account WHERE id = 1")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static void setBalance(Connection connection, long balance) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE account SET balance = ? WHERE id = 1")) {
            update.setLong(1, balance);
            update.executeUpdate();
        }
    }

    private static void insertLedger(Connection connection, String entry) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO ledger (entry) VALUES (?)")) {
            insert.setString(1, entry);
            insert.executeUpdate();
        }
    }

    private static java.util.List<String> ledger() throws SQLException {
        java.util.List<String> entries = new java.util.ArrayList<>();
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT entry FROM ledger ORDER BY id")) {
            while (rows.next()) {
                entries.add(rows.getString(1));
            }
        }
        return entries;
    }
}
