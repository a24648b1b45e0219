package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LeaseStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Forces, deterministically, the interleaving in which an acquire draws its fencing token, stalls before its
 * insert, and another client acquires the key meanwhile. A test-only trigger parks the insert of holder
 * {@code stalled} on an advisory lock (4242) that the test holds, after the token has been drawn.
 *
 * <p>With fencepost's statement the draw is serialized per key, so the second client waits and every grant
 * of the key has a higher token than the grants before it. The naive statement run through the same
 * interleaving grants the key later with a lower token, which shows that this test detects the bug.
 */
class FencingTokenOrderTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    private static final long GATE = 4242;

    private static final Duration LONG = Duration.ofMinutes(5);

    /** The obvious statement: nextval in the INSERT's source, no serialization of the draw. */
    private static final String NAIVE_ACQUIRE_SQL = """
            INSERT INTO distributed_lock AS l (lock_key, owner_token, holder, fencing_token, acquired_at, expires_at)
            VALUES (?, ?::uuid, ?, nextval('distributed_lock_fence_seq'), clock_timestamp(),
                    clock_timestamp() + ? * interval '1 millisecond')
            ON CONFLICT (lock_key) DO UPDATE
               SET owner_token = excluded.owner_token, holder = excluded.holder,
                   fencing_token = excluded.fencing_token,
                   acquired_at = excluded.acquired_at, expires_at = excluded.expires_at
             WHERE l.expires_at <= clock_timestamp()
            RETURNING l.fencing_token
            """;

    private ExecutorService clients;

    private Connection gate;

    @BeforeAll
    static void installTheStallingTrigger() {
        new SchemaInitializer(db.dataSource(), "distributed_lock").create();
        db.execute("""
                CREATE FUNCTION fencepost_test_stall() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.holder = 'stalled' THEN
                        PERFORM pg_advisory_xact_lock(4242);
                    END IF;
                    RETURN NEW;
                END
                $$;
                CREATE TRIGGER fencepost_test_stall BEFORE INSERT ON distributed_lock
                    FOR EACH ROW EXECUTE FUNCTION fencepost_test_stall();
                """);
    }

    @BeforeEach
    void closeTheGate() throws SQLException {
        clients = Executors.newFixedThreadPool(2);
        gate = db.adminDataSource().getConnection();
        try (PreparedStatement lock = gate.prepareStatement("SELECT pg_advisory_lock(?)")) {
            lock.setLong(1, GATE);
            lock.execute();
        }
    }

    @AfterEach
    void openTheGate() throws SQLException {
        gate.close();
        clients.shutdownNow();
    }

    @Test
    void aGrantAfterAStalledTokenDrawAlwaysGetsAHigherToken() throws Exception {
        String key = "order:" + UUID.randomUUID();
        LeaseStore storeA = store("fencepost-client-a");
        LeaseStore storeB = store("fencepost-client-b");
        List<Long> grantsInOrder = new ArrayList<>();
        String earlier = owner();
        grantsInOrder.add(granted(storeB.tryAcquire(key, earlier, "earlier", LONG)));
        assertThat(storeB.release(key, earlier, Duration.ZERO)).isTrue();

        String ownerA = owner();
        Future<AcquireResult> a = clients.submit(() -> storeA.tryAcquire(key, ownerA, "stalled", LONG));
        awaitWaitingOnAdvisoryLock("fencepost-client-a");
        // A has drawn its token and sits before its insert. B tries the same key.
        String ownerB = owner();
        Future<AcquireResult> b = clients.submit(() -> storeB.tryAcquire(key, ownerB, "b", LONG));
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> b.isDone() || waitingOnAdvisoryLock("fencepost-client-b"));
        boolean bWentFirst = b.isDone();
        if (bWentFirst && b.get() instanceof AcquireResult.Granted granted) {
            // Only possible when the draw is not serialized: B got the key past A's drawn token.
            grantsInOrder.add(granted.fencingToken());
            assertThat(storeB.release(key, ownerB, Duration.ZERO)).isTrue();
        }
        openGate();

        grantsInOrder.add(granted(a.get(30, TimeUnit.SECONDS)));
        if (!bWentFirst) {
            // B waited for A's statement to commit, then found the key held.
            assertThat(b.get(30, TimeUnit.SECONDS)).isInstanceOf(AcquireResult.Busy.class);
            assertThat(storeA.release(key, ownerA, Duration.ZERO)).isTrue();
            grantsInOrder.add(granted(storeB.tryAcquire(key, ownerB, "b", LONG)));
        }

        assertThat(grantsInOrder)
                .as("fencing tokens of the key's grants, in grant order")
                .hasSize(3)
                .isSorted()
                .doesNotHaveDuplicates();
        assertThat(bWentFirst).as("B waited for A's token draw to commit").isFalse();
    }

    @Test
    void theNaiveStatementGrantsALowerTokenAfterAHigherOneThroughTheSameInterleaving() throws Exception {
        String key = "naive:" + UUID.randomUUID();
        DataSource clientA = dataSource("fencepost-client-a");
        DataSource clientB = dataSource("fencepost-client-b");
        LeaseStore storeB = store("fencepost-client-b");
        List<Long> grantsInOrder = new ArrayList<>();
        String earlier = owner();
        grantsInOrder.add(naiveAcquire(clientB, key, earlier, "earlier"));
        assertThat(storeB.release(key, earlier, Duration.ZERO)).isTrue();

        Future<Long> a = clients.submit(() -> naiveAcquire(clientA, key, owner(), "stalled"));
        awaitWaitingOnAdvisoryLock("fencepost-client-a");
        // While A sits on its drawn token, B acquires and releases the key.
        String ownerB = owner();
        grantsInOrder.add(naiveAcquire(clientB, key, ownerB, "b"));
        assertThat(storeB.release(key, ownerB, Duration.ZERO)).isTrue();
        openGate();
        grantsInOrder.add(a.get(30, TimeUnit.SECONDS));

        assertThat(grantsInOrder).hasSize(3).doesNotContainNull();
        assertThat(grantsInOrder.get(2))
                .as("A's grant came after B's, with the token A drew before B's")
                .isLessThan(grantsInOrder.get(1));
        assertThat(grantsInOrder).isNotEqualTo(grantsInOrder.stream().sorted().toList());
    }

    private void openGate() throws SQLException {
        try (PreparedStatement unlock = gate.prepareStatement("SELECT pg_advisory_unlock(?)")) {
            unlock.setLong(1, GATE);
            unlock.execute();
        }
    }

    private static PostgresLeaseStore store(String applicationName) {
        return new PostgresLeaseStore(dataSource(applicationName), "distributed_lock", Duration.ofSeconds(30));
    }

    private static DataSource dataSource(String applicationName) {
        PGSimpleDataSource dataSource = db.unpooledDataSource();
        dataSource.setApplicationName(applicationName);
        return dataSource;
    }

    private static void awaitWaitingOnAdvisoryLock(String applicationName) {
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> waitingOnAdvisoryLock(applicationName));
    }

    private static boolean waitingOnAdvisoryLock(String applicationName) throws SQLException {
        try (Connection connection = db.adminDataSource().getConnection();
                PreparedStatement query = connection.prepareStatement("""
                        SELECT count(*) FROM pg_stat_activity
                         WHERE datname = current_database() AND application_name = ?
                           AND wait_event_type = 'Lock' AND wait_event = 'advisory'
                        """)) {
            query.setString(1, applicationName);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getInt(1) == 1;
            }
        }
    }

    private static Long naiveAcquire(DataSource dataSource, String key, String owner, String holder)
            throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement acquire = connection.prepareStatement(NAIVE_ACQUIRE_SQL)) {
            acquire.setString(1, key);
            acquire.setString(2, owner);
            acquire.setString(3, holder);
            acquire.setLong(4, LONG.toMillis());
            try (ResultSet rows = acquire.executeQuery()) {
                return rows.next() ? rows.getLong(1) : null;
            }
        }
    }

    private static long granted(AcquireResult result) {
        assertThat(result).isInstanceOf(AcquireResult.Granted.class);
        return ((AcquireResult.Granted) result).fencingToken();
    }

    private static String owner() {
        return UUID.randomUUID().toString();
    }
}
