package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.HandOver;
import io.fencepost.lock.spi.HandOverRequest;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.Registration;
import io.fencepost.lock.spi.ReleaseRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Every grant path against every other, through the interleaving that breaks token order when draws are not
 * serialized per key: a granting statement draws its fencing token and stalls before it writes its row; meanwhile
 * another path grants the key and its holder lets go; then the stalled statement resumes. The grants of the key, in
 * the order they were made, must carry strictly increasing tokens.
 *
 * <p>A test-only trigger parks the stalled statement on an advisory lock (the gate) that the test holds: at its
 * insert for the acquire statements (after the draw in the insert's source, before the conflict on the key is
 * resolved), and at its update for a takeover or a hand-over (after the draw, with the row locked).
 *
 * <p>The paths that draw before they lock the key's row (the acquire statements) are the dangerous stalled side;
 * for the paths that draw with the row locked, the interloper can only wait, and the test shows that it does. The
 * naive statement (no draw lock) run through the same interleaving grants the key later with a lower token, which
 * shows that the interleaving is real.
 */
@Tag("server-version")
class FencingTokenOrderTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    private static final long GATE = 4243;

    private static final Duration LONG = Duration.ofMinutes(5);

    /** Long enough for a statement to be sent and parked, short enough to wait out. */
    private static final Duration SHORT = Duration.ofMillis(1500);

    private static final Duration REGISTRATION_TTL = Duration.ofMinutes(1);

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

    /** A grant path, as the stalled statement or as the interloper. */
    enum GrantPath {
        /** The acquire statement on a free key (an insert). */
        ACQUIRE,
        /** The acquire statement on a key whose lease has expired (the conflict's update). */
        TAKEOVER,
        /** Fair mode's acquire statement: a registering attempt in turn. */
        FAIR,
        /** A holder's release handing the lease to a waiter of its own client. */
        HAND_OVER,
        /** A holder's release handing the lease to a waiter registered by another client. */
        RELAY
    }

    /** How the interloper's holder lets the key go before the stalled statement resumes. */
    enum LetGo {
        /** It releases: the stalled statement then finds no row and inserts. */
        RELEASE,
        /** Its lease runs out: the stalled statement then finds an expired row and takes it over. */
        EXPIRY
    }

    private ExecutorService clients;

    private Connection gate;

    private PostgresLeaseStore storeA;

    private PostgresLeaseStore stalled;

    private PostgresLeaseStore interloper;

    private PostgresLeaseStore admin;

    @BeforeAll
    static void installTheStallingTrigger() {
        new SchemaInitializer(db.dataSource(), "distributed_lock").create();
        db.execute("""
                CREATE FUNCTION fencepost_test_gate() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF (TG_OP = 'INSERT' AND NEW.holder = 'stalled')
                            OR (TG_OP = 'UPDATE' AND NEW.holder = 'stalled-at-update') THEN
                        PERFORM pg_advisory_xact_lock(4243);
                    END IF;
                    RETURN NEW;
                END
                $$;
                CREATE TRIGGER fencepost_test_gate BEFORE INSERT OR UPDATE ON distributed_lock
                    FOR EACH ROW EXECUTE FUNCTION fencepost_test_gate();
                """);
    }

    static Stream<Arguments> interleavings() {
        List<Arguments> cases = new ArrayList<>();
        for (GrantPath stalledPath : List.of(GrantPath.ACQUIRE, GrantPath.FAIR)) {
            for (GrantPath other : GrantPath.values()) {
                if (stalledPath == GrantPath.FAIR && other == GrantPath.RELAY) {
                    // A fair acquire behind a registered waiter takes its turn after it: it draws nothing.
                    continue;
                }
                for (LetGo letGo : LetGo.values()) {
                    cases.add(Arguments.of(stalledPath, other, letGo));
                }
            }
        }
        // Paths that draw with the key's row locked: whatever comes meanwhile has to wait.
        for (GrantPath stalledPath : List.of(GrantPath.TAKEOVER, GrantPath.HAND_OVER, GrantPath.RELAY)) {
            for (GrantPath other : List.of(GrantPath.ACQUIRE, GrantPath.FAIR)) {
                cases.add(Arguments.of(stalledPath, other, LetGo.RELEASE));
            }
        }
        return cases.stream();
    }

    @BeforeEach
    void closeTheGate() throws SQLException {
        clients = Executors.newFixedThreadPool(2);
        storeA = store("fencepost-client-a");
        stalled = store("fencepost-stalled");
        interloper = store("fencepost-interloper");
        admin = store("fencepost-test-admin");
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

    @ParameterizedTest(name = "{0} stalled after its draw, {1} meanwhile, its holder lets go by {2}")
    @MethodSource("interleavings")
    void grantsOfAKeyCarryIncreasingTokensWhateverPathsInterleave(GrantPath stalledPath, GrantPath other, LetGo letGo)
            throws Exception {
        String key = "order:" + stalledPath + ":" + other + ":" + letGo + ":" + UUID.randomUUID();
        List<Long> grantsInOrder = new ArrayList<>();

        // A holds the key; for a takeover, A's lease runs out first.
        boolean aExpires = stalledPath == GrantPath.TAKEOVER || other == GrantPath.TAKEOVER;
        String ownerA = owner();
        grantsInOrder.add(
                granted(storeA.acquire(new AcquireRequest(key, ownerA, "a", aExpires ? SHORT : LONG, false))));
        if (stalledPath == GrantPath.TAKEOVER) {
            awaitFree(key);
        }

        // A waiter of another client registers, for a release to hand the lease to.
        String ownerS = owner();
        String ownerO = owner();
        if (stalledPath == GrantPath.RELAY || other == GrantPath.RELAY) {
            boolean stalls = stalledPath == GrantPath.RELAY;
            AcquireRequest waiter = new AcquireRequest(
                    key,
                    stalls ? ownerS : ownerO,
                    stalls ? "stalled-at-update" : "interloper",
                    stalls || letGo == LetGo.RELEASE ? LONG : SHORT,
                    true);
            assertThat(admin.acquireOrRegister(waiter, new Registration(key, owner(), REGISTRATION_TTL, false)))
                    .isInstanceOf(AcquireResult.Busy.class);
        }

        // The stalled statement draws its token and parks.
        Future<Optional<AcquireResult.Granted>> s = clients.submit(() -> switch (stalledPath) {
            case ACQUIRE -> grant(stalled.acquire(new AcquireRequest(key, ownerS, "stalled", LONG, true)));
            case FAIR -> grant(fairAcquire(stalled, key, ownerS, "stalled", LONG));
            case TAKEOVER -> grant(stalled.acquire(new AcquireRequest(key, ownerS, "stalled-at-update", LONG, true)));
            case HAND_OVER ->
                stalled.handOver(new HandOverRequest(
                                ownerA, new AcquireRequest(key, ownerS, "stalled-at-update", LONG, true)))
                        .map(HandOver::granted);
            case RELAY -> relayed(stalled, key, ownerA);
        });
        awaitWaitingOnALock("fencepost-stalled");

        // Meanwhile the interloper's path tries to grant the key.
        boolean stalledHoldsTheRow = stalledPath == GrantPath.TAKEOVER
                || stalledPath == GrantPath.HAND_OVER
                || stalledPath == GrantPath.RELAY;
        if (!stalledHoldsTheRow) {
            switch (other) {
                case ACQUIRE, FAIR ->
                    assertThat(storeA.release(new ReleaseRequest(key, ownerA, Duration.ZERO)))
                            .isTrue();
                case TAKEOVER -> awaitFree(key);
                case HAND_OVER, RELAY -> {
                    // A's release is the interloper: it hands the lease to a waiter of A's client, or to the
                    // registered one.
                }
            }
        }
        Duration otherLease = letGo == LetGo.EXPIRY ? SHORT : LONG;
        Future<Optional<AcquireResult.Granted>> o = clients.submit(() -> switch (other) {
            case ACQUIRE, TAKEOVER ->
                grant(interloper.acquire(new AcquireRequest(key, ownerO, "interloper", otherLease, true)));
            case FAIR -> grant(fairAcquire(interloper, key, ownerO, "interloper", otherLease));
            case HAND_OVER ->
                interloper
                        .handOver(new HandOverRequest(
                                ownerA, new AcquireRequest(key, ownerO, "interloper", otherLease, true)))
                        .map(HandOver::granted);
            case RELAY -> relayed(interloper, key, ownerA);
        });
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> o.isDone() || waitingOnALock("fencepost-interloper"));
        boolean otherWentFirst = o.isDone();
        if (otherWentFirst && o.get().isPresent()) {
            // Only possible while the stalled statement's draw does not hold the key back: the interloper got the
            // key past a token drawn before its own. Its holder lets go, and the stalled statement may win.
            grantsInOrder.add(o.get().get().fencingToken());
            if (letGo == LetGo.RELEASE) {
                assertThat(interloper.release(new ReleaseRequest(key, ownerO, Duration.ZERO)))
                        .isTrue();
            } else {
                awaitFree(key);
            }
        }
        openGate();

        Optional<AcquireResult.Granted> sGrant = s.get(30, TimeUnit.SECONDS);
        sGrant.ifPresent(g -> grantsInOrder.add(g.fencingToken()));
        if (!otherWentFirst) {
            // The interloper waited for the stalled statement to commit; it is granted only if the key was free.
            o.get(30, TimeUnit.SECONDS).ifPresent(g -> grantsInOrder.add(g.fencingToken()));
        }

        // Whoever holds the key now lets go, and one more grant shows where the sequence stands.
        admin.forceRelease(key);
        grantsInOrder.add(granted(admin.acquire(new AcquireRequest(key, owner(), "last", LONG, false))));

        assertThat(grantsInOrder)
                .as("fencing tokens of the key's grants, in grant order")
                .isSorted()
                .doesNotHaveDuplicates();
        assertThat(otherWentFirst)
                .as("%s waited for the statement that drew its token first to commit", other)
                .isFalse();
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
        assertThat(storeB.release(new ReleaseRequest(key, earlier, Duration.ZERO)))
                .isTrue();

        Future<Long> a = clients.submit(() -> naiveAcquire(clientA, key, owner(), "stalled"));
        awaitWaitingOnALock("fencepost-client-a");
        // While A sits on its drawn token, B acquires and releases the key.
        String ownerB = owner();
        grantsInOrder.add(naiveAcquire(clientB, key, ownerB, "b"));
        assertThat(storeB.release(new ReleaseRequest(key, ownerB, Duration.ZERO)))
                .isTrue();
        openGate();
        grantsInOrder.add(a.get(30, TimeUnit.SECONDS));

        assertThat(grantsInOrder).hasSize(3).doesNotContainNull();
        assertThat(grantsInOrder.get(2))
                .as("A's grant came after B's, with the token A drew before B's")
                .isLessThan(grantsInOrder.get(1));
        assertThat(grantsInOrder).isNotEqualTo(grantsInOrder.stream().sorted().toList());
    }

    /** Releases A's lease through {@code releaser}; the grant the release made to the registered waiter, if any. */
    private Optional<AcquireResult.Granted> relayed(PostgresLeaseStore releaser, String key, String ownerA) {
        assertThat(releaser.release(new ReleaseRequest(key, ownerA, Duration.ZERO)))
                .isTrue();
        return admin.inspect(key)
                .filter(lease -> !lease.holder().equals("a"))
                .map(lease -> new AcquireResult.Granted(lease.fencingToken(), lease.acquiredAt(), lease.expiresAt()));
    }

    private static AcquireResult fairAcquire(
            PostgresLeaseStore store, String key, String owner, String holder, Duration leaseTime) {
        return store.acquireOrRegister(
                new AcquireRequest(key, owner, holder, leaseTime, true),
                new Registration(key, owner(), REGISTRATION_TTL, true));
    }

    private void openGate() throws SQLException {
        try (PreparedStatement unlock = gate.prepareStatement("SELECT pg_advisory_unlock(?)")) {
            unlock.setLong(1, GATE);
            unlock.execute();
        }
    }

    private void awaitFree(String key) {
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> admin.inspect(key).isEmpty());
    }

    private static PostgresLeaseStore store(String applicationName) {
        return new PostgresLeaseStore(dataSource(applicationName), "distributed_lock", Duration.ofSeconds(30));
    }

    private static DataSource dataSource(String applicationName) {
        PGSimpleDataSource dataSource = db.unpooledDataSource();
        dataSource.setApplicationName(applicationName);
        return dataSource;
    }

    private static void awaitWaitingOnALock(String applicationName) {
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> waitingOnALock(applicationName));
    }

    private static boolean waitingOnALock(String applicationName) throws SQLException {
        try (Connection connection = db.adminDataSource().getConnection();
                PreparedStatement query = connection.prepareStatement("""
                        SELECT count(*) FROM pg_stat_activity
                         WHERE datname = current_database() AND application_name = ?
                           AND wait_event_type = 'Lock'
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

    private static Optional<AcquireResult.Granted> grant(AcquireResult result) {
        return result instanceof AcquireResult.Granted granted ? Optional.of(granted) : Optional.empty();
    }

    private static long granted(AcquireResult result) {
        assertThat(result).isInstanceOf(AcquireResult.Granted.class);
        return ((AcquireResult.Granted) result).fencingToken();
    }

    private static String owner() {
        return UUID.randomUUID().toString();
    }
}
