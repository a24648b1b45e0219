package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.CloseAfterEach;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.LockListener;
import io.fencepost.lock.spi.StoreSweeper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The background sweeper of the PostgreSQL store ({@link PostgresSweeper}) on a real PostgreSQL. */
class PostgresSweeperTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    @RegisterExtension
    final CloseAfterEach closer = new CloseAfterEach();

    private static final AtomicInteger TABLES = new AtomicInteger();

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    /** The rows of leases: a running manager's presence row (see OneLockTableCheck) is live and never swept. */
    private static final String WITHOUT_PRESENCE = " WHERE lock_key NOT LIKE 'fencepost-presence/%'";

    private static final LockOptions LONG =
            LockOptions.builder().leaseTime(Duration.ofMinutes(5)).renew(false).build();

    /** Rows removed, by kind, as the listener hears of them. */
    private final Map<String, AtomicInteger> swept = new ConcurrentHashMap<>();

    private final LockListener counting = new LockListener() {
        @Override
        public void swept(String kind, int removed) {
            swept.computeIfAbsent(kind, k -> new AtomicInteger()).addAndGet(removed);
        }
    };

    /** A fresh lock table with its schema, so that tests do not see each other's rows. */
    private static String table() {
        String table = "sweep_" + TABLES.incrementAndGet();
        new SchemaInitializer(db.dataSource(), table).create();
        return table;
    }

    private static PostgresSweeper sweeper(String table, int batch, Duration fenceRowAge) {
        return new PostgresSweeper(
                db.dataSource(), TableName.of(table), TIMEOUT, Duration.ofMinutes(1), batch, fenceRowAge);
    }

    private PostgresLockManager.Builder manager(String table) {
        return PostgresLockManager.builder(db.dataSource())
                .tableName(table)
                .schemaMode(SchemaMode.NONE)
                .allowOtherLockTables(true);
    }

    /** Inserts {@code count} leases of keys {@code prefix0...} that ended a minute ago, in one statement. */
    private static void insertEndedLeases(String table, String prefix, int count) {
        db.execute("INSERT INTO " + table + " (lock_key, owner_token, holder, fencing_token, acquired_at, expires_at)"
                + " SELECT '" + prefix + "' || i, gen_random_uuid(), 'crashed@host', nextval('" + table
                + "_fence_seq'),"
                + " now() - interval '2 minutes', now() - interval '1 minute' FROM generate_series(0, " + (count - 1)
                + ") AS i");
    }

    private static long count(String sql) {
        try (Connection connection = db.adminDataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void drain(PostgresSweeper sweeper, LockListener listener) {
        while (sweeper.sweep(listener)) {
            // a full batch: more may be left
        }
    }

    @Test
    void aHundredThousandOneShotKeysAreSweptAndTheTableReturnsToItsLiveSize() {
        String table = table();
        insertEndedLeases(table, "request:", 100_000);
        db.execute(
                "INSERT INTO " + table + "_queue (lock_key, ticket, waiter, expires_at, owner_token, holder, lease_ms)"
                        + " SELECT 'request:' || i, nextval('" + table + "_fence_seq'), gen_random_uuid(),"
                        + " now() - interval '1 minute', gen_random_uuid(), 'gone@host', 30000 FROM generate_series(0, 999) AS i");
        PostgresLockManager locks = closer.add(manager(table)
                .sweepInterval(Duration.ofMillis(100))
                .sweepBatchSize(5_000)
                .listener(counting)
                .build());
        List<Lease> live = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            live.add(locks.acquire("live:" + i, LONG));
        }

        await().atMost(Duration.ofSeconds(25))
                .untilAsserted(() -> assertThat(count("SELECT count(*) FROM " + table + WITHOUT_PRESENCE))
                        .isEqualTo(3));

        assertThat(count("SELECT count(*) FROM " + table + "_queue")).isZero();
        assertThat(live).allSatisfy(lease -> {
            assertThat(lease.isHeld()).isTrue();
            assertThat(locks.inspect(lease.key()).orElseThrow().fencingToken()).isEqualTo(lease.fencingToken());
        });
        // the metric counts every row it removed, by kind
        await().untilAsserted(
                        () -> assertThat(swept).containsOnlyKeys(StoreSweeper.LEASES, StoreSweeper.REGISTRATIONS));
        assertThat(swept.get(StoreSweeper.LEASES)).hasValue(100_000);
        assertThat(swept.get(StoreSweeper.REGISTRATIONS)).hasValue(1_000);
    }

    @Test
    void aLeaseGrantedWhileTheSweeperRunsIsNeverRemoved() throws Exception {
        String table = table();
        PostgresSweeper sweeper = sweeper(table, 200, null);
        PostgresLockManager locks = closer.add(manager(table).sweep(false).build());
        ExecutorService threads = Executors.newFixedThreadPool(4);
        closer.add(threads::shutdownNow);
        int rounds = 3;
        int keys = 1_000;
        Map<String, Long> granted = new ConcurrentHashMap<>();
        int removedWhileGranting = 0;
        for (int round = 0; round < rounds; round++) {
            String prefix = "r" + round + ":";
            insertEndedLeases(table, prefix, keys);
            List<Integer> order =
                    new ArrayList<>(IntStream.range(0, keys).boxed().toList());
            Collections.shuffle(order);
            CountDownLatch start = new CountDownLatch(1);
            AtomicBoolean granting = new AtomicBoolean(true);
            List<Future<?>> acquirers = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                int first = t;
                acquirers.add(threads.submit(() -> {
                    start.await();
                    for (int i = first; i < keys; i += 3) {
                        String key = prefix + order.get(i);
                        Lease lease = locks.tryAcquire(key, LONG).orElseThrow();
                        granted.put(key, lease.fencingToken());
                    }
                    return null;
                }));
            }
            AtomicInteger removed = new AtomicInteger();
            LockListener counter = new LockListener() {
                @Override
                public void swept(String kind, int rows) {
                    if (granting.get()) {
                        removed.addAndGet(rows);
                    }
                }
            };
            Future<?> sweeping = threads.submit(() -> {
                start.await();
                drain(sweeper, counter);
                return null;
            });
            start.countDown();
            for (Future<?> acquirer : acquirers) {
                acquirer.get(60, TimeUnit.SECONDS);
            }
            granting.set(false);
            sweeping.get(60, TimeUnit.SECONDS);
            removedWhileGranting += removed.get();
        }

        // every grant is still the key's row, with its own token: the sweeper removed none of them
        Map<String, Long> rows = new HashMap<>();
        try (Connection connection = db.adminDataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet result =
                        statement.executeQuery("SELECT lock_key, fencing_token FROM " + table + WITHOUT_PRESENCE)) {
            while (result.next()) {
                rows.put(result.getString(1), result.getLong(2));
            }
        }
        assertThat(granted).hasSize(rounds * keys);
        assertThat(rows).containsExactlyInAnyOrderEntriesOf(granted);
        // the two really ran at the same time
        assertThat(removedWhileGranting).isPositive();
    }

    @Test
    void aRowThatAMinimumHoldStillKeepsIsNotSwept() {
        String table = table();
        PostgresLockManager locks = closer.add(manager(table).sweep(false).build());
        Lease held = locks.acquire(
                "report",
                LockOptions.builder()
                        .leaseTime(Duration.ofMinutes(15))
                        .minHoldTime(Duration.ofMinutes(10))
                        .renew(false)
                        .build());
        held.release();

        drain(sweeper(table, 10, null), counting);

        assertThat(locks.inspect("report")).isPresent();
        assertThat(locks.tryAcquire("report", LONG)).isEmpty();
        assertThat(swept).isEmpty();
    }

    @Test
    void anEndedLeaseStaysWhileALiveRegistrationWaitsForItsKeyOrAWriterHoldsReadersBack() {
        String table = table();
        insertEndedLeases(table, "waited:", 1);
        insertEndedLeases(table, "readers:", 1);
        insertEndedLeases(table, "free:", 1);
        db.execute(
                "INSERT INTO " + table + "_queue (lock_key, ticket, waiter, expires_at, owner_token, holder, lease_ms)"
                        + " VALUES ('waited:0', nextval('" + table + "_fence_seq'), gen_random_uuid(),"
                        + " now() + interval '1 minute', gen_random_uuid(), 'waiter@host', 30000)");
        db.execute("UPDATE " + table + " SET lease_mode = 'shared', permits = 0,"
                + " exclusive_waits_until = now() + interval '1 minute' WHERE lock_key = 'readers:0'");

        drain(sweeper(table, 10, null), counting);

        assertThat(count("SELECT count(*) FROM " + table + " WHERE lock_key IN ('waited:0', 'readers:0')"))
                .isEqualTo(2);
        assertThat(count("SELECT count(*) FROM " + table + "_queue")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM " + table + WITHOUT_PRESENCE)).isEqualTo(2);
        assertThat(swept.get(StoreSweeper.LEASES)).hasValue(1);
    }

    @Test
    void fenceRowsAreKeptUnlessAnAgeIsConfiguredAndThenOnlyThoseUntouchedForThatLong() throws SQLException {
        String table = table();
        JdbcFencingGuard guard = new JdbcFencingGuard(table);
        try (Connection connection = db.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            guard.check(connection, "account:old", 10);
            guard.check(connection, "account:recent", 11);
            connection.commit();
        }
        db.execute("UPDATE " + table + "_fence SET accepted_at = now() - interval '8 days'"
                + " WHERE resource = 'account:old'");

        drain(sweeper(table, 10, null), counting);
        assertThat(count("SELECT count(*) FROM " + table + "_fence")).isEqualTo(2);

        drain(sweeper(table, 10, Duration.ofDays(7)), counting);
        try (Connection connection = db.adminDataSource().getConnection();
                PreparedStatement select = connection.prepareStatement("SELECT resource FROM " + table + "_fence");
                ResultSet rows = select.executeQuery()) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getString(1)).isEqualTo("account:recent");
            assertThat(rows.next()).isFalse();
        }
        assertThat(swept).containsOnlyKeys(StoreSweeper.FENCES);
        assertThat(swept.get(StoreSweeper.FENCES)).hasValue(1);
    }

    @Test
    void badSweepSettingsFailTheBuildNamingTheSetting() {
        assertThatThrownBy(() ->
                        manager("never_built").sweepInterval(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sweep interval must be positive, was PT0S")
                .hasMessageContaining("fencepost.jdbc.sweep.enabled=false");
        assertThatThrownBy(() -> manager("never_built").sweepBatchSize(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sweep batch size must be between 1 and 100000, was 0");
        assertThatThrownBy(() -> manager("never_built")
                        .sweepFenceRowAge(Duration.ofDays(-1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fence row age must be positive, was PT-24H");
    }
}
