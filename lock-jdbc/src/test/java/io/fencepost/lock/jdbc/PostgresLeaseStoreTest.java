package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.RenewRequest;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/** Store-level behaviour of {@link PostgresLeaseStore} on a real PostgreSQL. */
@Tag("server-version")
class PostgresLeaseStoreTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    private static final Duration LONG = Duration.ofMinutes(5);

    private static final Duration SHORT = Duration.ofMillis(200);

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private static PostgresLeaseStore store;

    @BeforeAll
    static void createSchema() {
        new SchemaInitializer(db.dataSource(), "distributed_lock").create();
        store = new PostgresLeaseStore(db.dataSource(), "distributed_lock", TIMEOUT);
    }

    private static String key() {
        return "store-test:" + UUID.randomUUID();
    }

    private static String owner() {
        return UUID.randomUUID().toString();
    }

    private static AcquireResult.Granted grant(String key, String owner, String holder, Duration leaseTime) {
        AcquireResult result = store.acquire(new AcquireRequest(key, owner, holder, leaseTime, false));
        assertThat(result).isInstanceOf(AcquireResult.Granted.class);
        return (AcquireResult.Granted) result;
    }

    private static AcquireResult.Granted awaitTakeover(String key, String owner, String holder) {
        return (AcquireResult.Granted) await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(
                        () -> store.acquire(new AcquireRequest(key, owner, holder, LONG, false)),
                        AcquireResult.Granted.class::isInstance);
    }

    @Test
    void grantsAFreeKeyWithATokenAndTheDatabasesTimes() {
        String key = key();

        AcquireResult.Granted granted = grant(key, owner(), "app@host", Duration.ofSeconds(30));

        assertThat(granted.fencingToken()).isPositive();
        assertThat(Duration.between(granted.acquiredAt(), granted.expiresAt()))
                .isBetween(Duration.ofSeconds(30), Duration.ofSeconds(31));
        LeaseInfo info = store.inspect(key).orElseThrow();
        assertThat(info)
                .isEqualTo(new LeaseInfo(
                        key, granted.fencingToken(), "app@host", granted.acquiredAt(), granted.expiresAt()));
    }

    @Test
    void aGrantCommitsDurablyAndALosingAttemptAsynchronously() throws SQLException {
        // A deferred trigger runs right before commit and records the synchronous_commit that commit will use.
        new SchemaInitializer(db.dataSource(), "commit_probe").create();
        try (Connection connection = db.dataSource().getConnection();
                java.sql.Statement statement = connection.createStatement()) {
            statement.execute("""
                    CREATE TABLE commit_probe_log (id bigserial, lock_key text, fencing_token bigint, mode text);
                    CREATE FUNCTION commit_probe_record() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        INSERT INTO commit_probe_log (lock_key, fencing_token, mode)
                        VALUES (NEW.lock_key, NEW.fencing_token, current_setting('synchronous_commit'));
                        RETURN NULL;
                    END $$;
                    CREATE CONSTRAINT TRIGGER commit_probe_at_commit AFTER INSERT OR UPDATE ON commit_probe
                        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION commit_probe_record();
                    """);
        }
        PostgresLeaseStore probed = new PostgresLeaseStore(db.dataSource(), "commit_probe", TIMEOUT);
        String key = key();
        AcquireResult.Granted granted =
                (AcquireResult.Granted) probed.acquire(new AcquireRequest(key, owner(), "winner", LONG, false));
        // a waiting loser marks the lease as waited for: a write, committed without waiting for the WAL flush
        assertThat(probed.acquire(new AcquireRequest(key, owner(), "waiting loser", LONG, true)))
                .isInstanceOf(AcquireResult.Busy.class);
        String expired = key();
        assertThat(probed.acquire(new AcquireRequest(expired, owner(), "short", SHORT, false)))
                .isInstanceOf(AcquireResult.Granted.class);
        // losing attempts that do not wait change no row: the probe sees nothing of them
        await().atMost(Duration.ofSeconds(10))
                .until(() -> probed.acquire(new AcquireRequest(expired, owner(), "taker", LONG, false))
                        instanceof AcquireResult.Granted);

        List<String> modes = new ArrayList<>();
        try (Connection connection = db.dataSource().getConnection();
                ResultSet rows = connection
                        .createStatement()
                        .executeQuery("SELECT lock_key, fencing_token, mode FROM commit_probe_log ORDER BY id")) {
            while (rows.next()) {
                modes.add((rows.getString(1).equals(key) ? "key" : "expired") + ":" + rows.getString(3));
            }
        }
        // the grant, the waiter's mark, the short grant, then the takeover of the expired lease
        assertThat(modes).containsExactly("key:on", "key:off", "expired:on", "expired:on");
        assertThat(granted.fencingToken()).isPositive();
    }

    @Test
    void aHeldKeyIsBusyWithTheHoldersRemainingTimeForAWaiter() {
        String key = key();
        grant(key, owner(), "a", Duration.ofSeconds(10));

        // A caller that does not wait learns only that the key is busy (its statement writes nothing).
        assertThat(store.acquire(new AcquireRequest(key, owner(), "b", LONG, false)))
                .isEqualTo(AcquireResult.Busy.unknown());
        AcquireResult second = store.acquire(new AcquireRequest(key, owner(), "b", LONG, true));

        assertThat(second)
                .isInstanceOfSatisfying(
                        AcquireResult.Busy.class,
                        busy -> assertThat(busy.remaining())
                                .hasValueSatisfying(remaining -> assertThat(remaining)
                                        .isPositive()
                                        .isLessThanOrEqualTo(Duration.ofSeconds(10))));
        assertThat(store.inspect(key).orElseThrow().holder()).isEqualTo("a");
    }

    @Test
    void anExpiredLeaseIsTakenOverWithAHigherToken() {
        String key = key();
        AcquireResult.Granted first = grant(key, owner(), "a", SHORT);

        AcquireResult.Granted second = awaitTakeover(key, owner(), "b");

        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(second.acquiredAt()).isAfterOrEqualTo(first.expiresAt());
        assertThat(store.inspect(key).orElseThrow().holder()).isEqualTo("b");
    }

    @Test
    void releaseByTheOwnerFreesTheKeyAtOnce() {
        String key = key();
        String owner = owner();
        grant(key, owner, "a", LONG);

        assertThat(store.release(new ReleaseRequest(key, owner, Duration.ZERO))).isTrue();

        assertThat(store.inspect(key)).isEmpty();
        assertThat(store.acquire(new AcquireRequest(key, owner(), "b", LONG, false)))
                .isInstanceOf(AcquireResult.Granted.class);
    }

    @Test
    void releaseIsIdempotentAndFalseTheSecondTime() {
        String key = key();
        String owner = owner();
        grant(key, owner, "a", LONG);

        assertThat(store.release(new ReleaseRequest(key, owner, Duration.ZERO))).isTrue();
        assertThat(store.release(new ReleaseRequest(key, owner, Duration.ZERO))).isFalse();
    }

    @Test
    void releaseWithAWrongOwnerTokenReturnsFalseAndLeavesTheRow() {
        String key = key();
        grant(key, owner(), "a", LONG);
        LeaseInfo before = store.inspect(key).orElseThrow();

        assertThat(store.release(new ReleaseRequest(key, owner(), Duration.ZERO)))
                .isFalse();
        assertThat(store.release(new ReleaseRequest(key, owner(), Duration.ofSeconds(1))))
                .isFalse();

        assertThat(store.inspect(key)).contains(before);
    }

    @Test
    void releasingOurExpiredLeaseReturnsFalse() {
        String key = key();
        String owner = owner();
        grant(key, owner, "a", SHORT);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.inspect(key).isEmpty());

        assertThat(store.release(new ReleaseRequest(key, owner, Duration.ZERO))).isFalse();
    }

    @Test
    void aReleaseAfterExpiryAndTakeoverReturnsFalseAndLeavesTheNewHolderIntact() {
        String key = key();
        String stale = owner();
        grant(key, stale, "stale", SHORT);
        AcquireResult.Granted fresh = awaitTakeover(key, owner(), "fresh");
        LeaseInfo before = store.inspect(key).orElseThrow();

        assertThat(store.release(new ReleaseRequest(key, stale, Duration.ZERO))).isFalse();
        assertThat(store.release(new ReleaseRequest(key, stale, Duration.ofSeconds(10))))
                .isFalse();

        assertThat(store.inspect(key)).contains(before);
        assertThat(before.fencingToken()).isEqualTo(fresh.fencingToken());
        assertThat(before.holder()).isEqualTo("fresh");
    }

    @Test
    void aRenewalAfterExpiryAndTakeoverIsRefusedAndLeavesTheNewHolderIntact() {
        String key = key();
        String stale = owner();
        grant(key, stale, "stale", SHORT);
        awaitTakeover(key, owner(), "fresh");
        LeaseInfo before = store.inspect(key).orElseThrow();

        Map<String, Instant> renewed = renewByKey(List.of(new RenewRequest(key, stale, LONG.multipliedBy(2))));

        assertThat(renewed).isEmpty();
        assertThat(store.inspect(key)).contains(before);
    }

    @Test
    void renewalExtendsTheLeaseFromNowByTheDatabaseClock() {
        String key = key();
        String owner = owner();
        AcquireResult.Granted granted = grant(key, owner, "a", Duration.ofSeconds(2));

        Map<String, Instant> renewed = renewByKey(List.of(new RenewRequest(key, owner, LONG)));

        assertThat(renewed).containsOnlyKeys(key);
        assertThat(renewed.get(key)).isAfter(granted.expiresAt());
        assertThat(store.inspect(key).orElseThrow().expiresAt()).isEqualTo(renewed.get(key));
        assertThat(store.inspect(key).orElseThrow().acquiredAt()).isEqualTo(granted.acquiredAt());
    }

    @Test
    void anEmptyRenewalBatchDoesNotTouchTheDatabase() {
        DataSource failing = new PGSimpleDataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                throw new SQLException("must not be called", "XX000");
            }
        };
        PostgresLeaseStore offline = new PostgresLeaseStore(failing, "distributed_lock", TIMEOUT);

        assertThat(offline.renew(List.of())).isEmpty();
    }

    @Test
    void releaseWithMinHoldTimeKeepsTheKeyUntilAcquisitionPlusMinHoldAndCannotBeRenewed() {
        String key = key();
        String owner = owner();
        AcquireResult.Granted granted = grant(key, owner, "a", LONG);

        assertThat(store.release(new ReleaseRequest(key, owner, Duration.ofMillis(500))))
                .isTrue();

        LeaseInfo kept = store.inspect(key).orElseThrow();
        assertThat(kept.expiresAt()).isEqualTo(granted.acquiredAt().plusMillis(500));
        assertThat(kept.fencingToken()).isEqualTo(granted.fencingToken());
        assertThat(store.acquire(new AcquireRequest(key, owner(), "b", LONG, false)))
                .isInstanceOf(AcquireResult.Busy.class);
        // The owner token was replaced: neither a racing renewal nor a second release finds our row.
        assertThat(store.renew(List.of(new RenewRequest(key, owner, LONG)))).isEmpty();
        assertThat(store.release(new ReleaseRequest(key, owner, Duration.ZERO))).isFalse();
        assertThat(store.inspect(key)).contains(kept);
        AcquireResult.Granted next = awaitTakeover(key, owner(), "b");
        assertThat(next.acquiredAt()).isAfterOrEqualTo(kept.expiresAt());
    }

    @Test
    void releaseWithAMinHoldTimeThatHasPassedFreesTheKeyNow() {
        String key = key();
        String owner = owner();
        grant(key, owner, "a", LONG);

        assertThat(store.release(new ReleaseRequest(key, owner, Duration.ofNanos(1))))
                .isTrue();

        assertThat(store.acquire(new AcquireRequest(key, owner(), "b", LONG, false)))
                .isInstanceOf(AcquireResult.Granted.class);
    }

    @Test
    void releaseWithMinHoldTimeKeepsTheKeyUntilAcquisitionPlusMinHoldEvenPastTheLease() {
        String key = key();
        String owner = owner();
        AcquireResult.Granted granted = grant(key, owner, "a", Duration.ofSeconds(30));

        assertThat(store.release(new ReleaseRequest(key, owner, Duration.ofMinutes(10))))
                .isTrue();

        assertThat(store.inspect(key).orElseThrow().expiresAt())
                .isEqualTo(granted.acquiredAt().plus(Duration.ofMinutes(10)));
    }

    @Test
    void releaseWithMinHoldTimeOfAnExpiredLeaseReturnsFalse() {
        String key = key();
        String owner = owner();
        grant(key, owner, "a", SHORT);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.inspect(key).isEmpty());

        assertThat(store.release(new ReleaseRequest(key, owner, Duration.ofSeconds(10))))
                .isFalse();
    }

    @Test
    void fencingTokensStrictlyIncreaseAcrossGrantsTakeoversAndKeys() {
        String key = key();
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String owner = owner();
            tokens.add(grant(key, owner, "a", LONG).fencingToken());
            tokens.add(grant(key(), owner(), "b", LONG).fencingToken());
            assertThat(store.release(new ReleaseRequest(key, owner, Duration.ZERO)))
                    .isTrue();
        }
        tokens.add(grant(key, owner(), "a", SHORT).fencingToken());
        tokens.add(awaitTakeover(key, owner(), "b").fencingToken());

        assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void keysAndHoldersRoundTripExactly() {
        List<String> keys = List.of(
                "it's",
                "'; drop table distributed_lock; --",
                "\"quoted\" $1 ? %s %_ \\ \n\t",
                "ключ-鍵-ключ".repeat(23),
                "🔒".repeat(255),
                "ж".repeat(255));
        for (String key : keys) {
            String owner = owner();
            String holder = "holder '"
                    + key.substring(0, key.offsetByCodePoints(0, Math.min(20, key.codePointCount(0, key.length()))))
                    + "'; --";
            AcquireResult.Granted granted = grant(key, owner, holder, LONG);

            LeaseInfo info = store.inspect(key).orElseThrow();

            assertThat(info.key()).isEqualTo(key);
            assertThat(info.holder()).isEqualTo(holder);
            assertThat(info.fencingToken()).isEqualTo(granted.fencingToken());
            assertThat(renewByKey(List.of(new RenewRequest(key, owner, LONG)))).containsOnlyKeys(key);
            assertThat(store.release(new ReleaseRequest(key, owner, Duration.ZERO)))
                    .isTrue();
        }
        assertThat(countRows("'; drop table distributed_lock; --")).isZero();
    }

    @Test
    void aTooLongHolderIsCutToTheColumnWidth() {
        String key = key();
        grant(key, owner(), "h".repeat(300), LONG);

        assertThat(store.inspect(key).orElseThrow().holder()).isEqualTo("h".repeat(255));
    }

    @Test
    void keysThePostgresColumnCannotHoldAreRejectedBeforeTheDatabase() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> store.acquire(new AcquireRequest("a\0b", owner(), "a", LONG, false)))
                .withMessageContaining("NUL");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> store.acquire(new AcquireRequest("k".repeat(256), owner(), "a", LONG, false)))
                .withMessageContaining("256 characters");
    }

    @Test
    void ownerTokensThatAreNotUuidsStillWork() {
        String key = key();
        grant(key, "not-a-uuid", "a", LONG);

        assertThat(store.release(new ReleaseRequest(key, "another-token", Duration.ZERO)))
                .isFalse();
        assertThat(store.release(new ReleaseRequest(key, "not-a-uuid", Duration.ZERO)))
                .isTrue();
    }

    @Test
    void anUnreachableDatabaseFailsWithAStoreErrorThatNamesTheKeyAndNotTheOwner() throws IOException {
        PGSimpleDataSource unreachable = new PGSimpleDataSource();
        unreachable.setServerNames(new String[] {"127.0.0.1"});
        unreachable.setPortNumbers(new int[] {closedPort()});
        unreachable.setDatabaseName("postgres");
        unreachable.setUser("postgres");
        unreachable.setConnectTimeout(2);
        PostgresLeaseStore offline = new PostgresLeaseStore(unreachable, "distributed_lock", TIMEOUT);
        String owner = owner();

        assertThatThrownBy(() -> offline.acquire(new AcquireRequest("k", owner, "a", LONG, false)))
                .isInstanceOf(LockStoreException.class)
                .hasMessageStartingWith("could not acquire lock 'k': the lock store failed (SQLState 08001)")
                .hasMessageContaining("check the database connection")
                .message()
                .doesNotContain(owner);
        assertThatThrownBy(() -> offline.release(new ReleaseRequest("k", owner, Duration.ZERO)))
                .isInstanceOf(LockStoreException.class)
                .hasMessageStartingWith("could not release lock 'k'");
        assertThatThrownBy(() -> offline.renew(List.of(new RenewRequest("k", owner, LONG))))
                .isInstanceOf(LockStoreException.class)
                .hasMessageStartingWith("could not renew 1 lease ('k')");
        assertThatThrownBy(() -> offline.inspect("k"))
                .isInstanceOf(LockStoreException.class)
                .hasMessageStartingWith("could not inspect lock 'k'");
    }

    @Test
    void aMissingTableFailsWithAStoreErrorThatSaysHowToCreateIt() {
        PostgresLeaseStore missing = new PostgresLeaseStore(db.dataSource(), "never_created", TIMEOUT);

        assertThatThrownBy(() -> missing.acquire(new AcquireRequest("k", owner(), "a", LONG, false)))
                .isInstanceOf(LockStoreException.class)
                .hasMessageContaining("could not acquire lock 'k'")
                .hasMessageContaining("SQLState 42P01")
                .hasMessageContaining("SchemaMode.CREATE")
                .hasMessageContaining("schema-postgresql.sql");
    }

    @Test
    void aLosingAttemptThatDoesNotWaitTakesNoLockAndDrawsNoToken() throws SQLException {
        String key = key();
        AcquireResult.Granted granted = grant(key, owner(), "holder", LONG);
        PostgresLeaseStore impatient =
                new PostgresLeaseStore(db.dataSource(), "distributed_lock", Duration.ofSeconds(2));
        try (Connection blocker = db.adminDataSource().getConnection()) {
            blocker.setAutoCommit(false);
            try (PreparedStatement drawLock = blocker.prepareStatement("SELECT pg_advisory_xact_lock(?, hashtext(?))");
                    PreparedStatement rowLock =
                            blocker.prepareStatement("SELECT 1 FROM distributed_lock WHERE lock_key = ? FOR UPDATE")) {
                // Another transaction holds both the key's draw lock and its row: an attempt that needed either would
                // wait for it and run into the statement timeout.
                drawLock.setInt(1, impatient.advisoryClassId());
                drawLock.setString(2, key);
                drawLock.execute();
                rowLock.setString(1, key);
                rowLock.execute();
                long tokenBefore = lastFencingToken();

                for (int attempt = 0; attempt < 3; attempt++) {
                    assertThat(impatient.acquire(new AcquireRequest(key, owner(), "loser", LONG, false)))
                            .isEqualTo(AcquireResult.Busy.unknown());
                }

                assertThat(lastFencingToken()).isEqualTo(tokenBefore);
            } finally {
                blocker.rollback();
            }
        }
        assertThat(store.inspect(key).orElseThrow().fencingToken()).isEqualTo(granted.fencingToken());
    }

    private long lastFencingToken() throws SQLException {
        try (Connection connection = db.dataSource().getConnection();
                ResultSet rows = connection
                        .createStatement()
                        .executeQuery("SELECT last_value FROM distributed_lock_fence_seq")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    @Test
    void aStatementThatCannotFinishInTimeFailsWithAStoreErrorWithinTheTimeout() throws SQLException {
        String key = key();
        PostgresLeaseStore impatient =
                new PostgresLeaseStore(db.dataSource(), "distributed_lock", Duration.ofSeconds(1));
        try (Connection blocker = db.adminDataSource().getConnection();
                PreparedStatement lock = blocker.prepareStatement("SELECT pg_advisory_lock(?, hashtext(?))")) {
            // Hold the per-key token-draw lock, as a stalled acquirer would.
            lock.setInt(1, impatient.advisoryClassId());
            lock.setString(2, key);
            lock.execute();
            long start = System.nanoTime();

            assertThatThrownBy(() -> impatient.acquire(new AcquireRequest(key, owner(), "a", LONG, false)))
                    .isInstanceOf(LockStoreException.class)
                    .hasMessageContaining("could not acquire lock '" + key + "'")
                    .hasMessageContaining("statement timeout");

            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
        }
    }

    @Test
    void aConnectionHandedOutWithoutAutocommitIsUsedInAutocommitAndGivenBackAsItWas() throws SQLException {
        try (Connection raw = db.unpooledDataSource().getConnection()) {
            raw.setAutoCommit(false);
            raw.setNetworkTimeout(Runnable::run, 60_000);
            AtomicInteger handedOut = new AtomicInteger();
            PostgresLeaseStore onThatConnection =
                    new PostgresLeaseStore(singleConnection(raw, handedOut), "distributed_lock", TIMEOUT);
            String key = key();

            assertThat(onThatConnection.acquire(new AcquireRequest(key, owner(), "a", LONG, false)))
                    .isInstanceOf(AcquireResult.Granted.class);

            assertThat(handedOut).hasValue(1);
            assertThat(raw.getAutoCommit()).isFalse();
            assertThat(raw.getNetworkTimeout()).isEqualTo(60_000);
            // Committed on its own: another client sees it, and a rollback on the connection changes nothing.
            assertThat(store.inspect(key)).isPresent();
            raw.rollback();
            assertThat(store.inspect(key)).isPresent();
        }
    }

    @Test
    void aLockTakenWhileTheCallerHasAnOpenTransactionIsVisibleAtOnceAndSurvivesItsRollback() throws SQLException {
        String key = key();
        try (Connection caller = db.dataSource().getConnection()) {
            caller.setAutoCommit(false);
            try (PreparedStatement work = caller.prepareStatement("SELECT txid_current()")) {
                work.execute();
            }

            assertThat(store.acquire(new AcquireRequest(key, owner(), "a", LONG, false)))
                    .isInstanceOf(AcquireResult.Granted.class);

            assertThat(countRows(key)).isOne();
            caller.rollback();
        }
        assertThat(countRows(key)).isOne();
    }

    private static DataSource singleConnection(Connection connection, AtomicInteger handedOut) {
        Connection unclosable = (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return new PGSimpleDataSource() {
            @Override
            public Connection getConnection() {
                handedOut.incrementAndGet();
                return unclosable;
            }
        };
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static int countRows(String key) {
        try (Connection connection = db.adminDataSource().getConnection();
                PreparedStatement count =
                        connection.prepareStatement("SELECT count(*) FROM distributed_lock WHERE lock_key = ?")) {
            count.setString(1, key);
            try (ResultSet rows = count.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Renews {@code requests} in one batch; the new expiry of each renewed lease, by key. */
    private Map<String, Instant> renewByKey(List<RenewRequest> requests) {
        Map<String, Instant> byKey = new java.util.HashMap<>();
        store.renew(requests).forEach((request, expiresAt) -> byKey.put(request.key(), expiresAt));
        return byKey;
    }
}
