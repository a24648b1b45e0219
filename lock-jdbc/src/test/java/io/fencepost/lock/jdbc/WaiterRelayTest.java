package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.CloseAfterEach;
import io.fencepost.lock.jdbc.test.CountingDataSource;
import io.fencepost.lock.jdbc.test.FixedPool;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.Registration;
import io.fencepost.lock.spi.ReleaseRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Releases that hand the key to a waiter of another client: in the same statement (the key is never free in
 * between), to the oldest live registration, told by a message the waiter checks, and never to a registration whose
 * waiter stopped refreshing it.
 */
@Tag("server-version")
class WaiterRelayTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    @RegisterExtension
    final CloseAfterEach closer = new CloseAfterEach();

    /** A thread per blocking call: the common pool may have a single thread on a small machine. */
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private static final LockOptions HOLD = LockOptions.of(Duration.ofMinutes(5));

    private static final LockOptions WAIT =
            HOLD.toBuilder().waitTime(Duration.ofMinutes(1)).build();

    @BeforeAll
    static void createSchema() {
        new SchemaInitializer(db.dataSource(), "distributed_lock").create();
    }

    private static String key() {
        return "relay:" + UUID.randomUUID();
    }

    /**
     * A client that learns of releases only by notification: it would re-check every 5 minutes. It does not wait in
     * the server's lock queue, which would wake it there instead (PostgresLockQueueTest, QueueHandOffTest).
     */
    private PostgresLockManager patientClient(javax.sql.DataSource dataSource) {
        return closer.add(PostgresLockManager.builder(dataSource)
                .queueSessions(0)
                .pushFallback(Duration.ofMinutes(5))
                .retryBackoff(Duration.ofMinutes(5), Duration.ofMinutes(5))
                .build());
    }

    @Test
    void aReleaseHandsTheKeyToAWaiterElsewhereWhichFindsItselfTheHolderWithoutAnotherStatement() throws Exception {
        String key = key();
        LockManager a = closer.add(PostgresLockManager.create(db.dataSource()));
        CountingDataSource counting = new CountingDataSource(physical());
        PostgresLockManager b = patientClient(pool(counting, 2));
        b.acquire(key(), HOLD).release(); // the schema check and the pool are not the subject

        Lease first = a.acquire(key, HOLD);
        CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> b.acquire(key, WAIT), threads);
        await().atMost(Duration.ofSeconds(10)).until(() -> registrations(key) == 1);
        counting.reset();

        assertThat(first.release()).isTrue();
        assertThat(a.tryAcquire(key, HOLD))
                .as("the releasing client, right after its release: the key went to the waiter in the same statement")
                .isEmpty();
        Lease handed = waiter.get(30, TimeUnit.SECONDS);

        assertThat(handed.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(a.inspect(key).orElseThrow().fencingToken()).isEqualTo(handed.fencingToken());
        assertThat(counting.executedSql().stream()
                        .filter(sql -> !sql.startsWith("LISTEN") && !sql.equals("SELECT 1"))
                        .toList())
                .as("statements of the waiter's client between the release and its grant")
                .isEmpty();
        assertThat(registrations(key)).isZero();
        assertThat(handed.release()).isTrue();
    }

    @Test
    void aHandOverIsToldToTheWaitersOwnClientAloneNotToEveryListenerOfTheTable() throws Exception {
        String key = key();
        LockManager a = closer.add(PostgresLockManager.create(db.dataSource()));
        PostgresLockManager b = patientClient(db.dataSource());
        String channel = TableName.of("distributed_lock").channel();
        // Stands in for every other client: each listens on the table's channel for the keys its callers wait for.
        try (Connection bystander = db.dataSource().getConnection()) {
            try (Statement listen = bystander.createStatement()) {
                listen.execute("LISTEN " + channel);
            }
            Lease first = a.acquire(key, HOLD);
            CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> b.acquire(key, WAIT), threads);
            await().atMost(Duration.ofSeconds(10)).until(() -> registrations(key) == 1);

            assertThat(first.release()).isTrue();
            // b re-checks only every 5 minutes: its grant can only have come by the release's message.
            Lease handed = waiter.get(30, TimeUnit.SECONDS);
            db.execute("NOTIFY " + channel + ", 'end of test'"); // queued behind anything the release sent

            List<String> heard = new ArrayList<>();
            PGConnection pg = bystander.unwrap(PGConnection.class);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!heard.contains("end of test") && System.nanoTime() < deadline) {
                PGNotification[] notifications = pg.getNotifications(1_000);
                for (PGNotification notification : notifications == null ? new PGNotification[0] : notifications) {
                    heard.add(notification.getParameter());
                }
            }
            assertThat(heard).contains("end of test");
            assertThat(heard)
                    .as("what a client that waits for nothing of this hand-over heard on the table's channel")
                    .noneMatch(payload -> payload.startsWith(NotificationListener.HAND_OVER_PREFIX));
            assertThat(handed.release()).isTrue();
        }
    }

    @Test
    void aGrantOnTheTablesChannelAsAReleaseOfAnOlderVersionSendsItIsTakenToo() throws Exception {
        String key = key();
        PostgresLeaseStore store = storeWithKeyHeld(key, UUID.randomUUID().toString());
        String owner = UUID.randomUUID().toString();
        Registration registration = new Registration(key, UUID.randomUUID().toString(), Duration.ofMinutes(1), false);
        assertThat(store.acquireOrRegister(
                        new AcquireRequest(key, owner, "waiter", HOLD.leaseTime(), true), registration))
                .isInstanceOf(AcquireResult.Busy.class);
        CompletableFuture<AcquireResult.Granted> told = new CompletableFuture<>();
        try (var subscription = store.onHandOver(registration, owner, told::complete)) {
            long token = 4_242_424_242L;
            db.execute("NOTIFY " + TableName.of("distributed_lock").channel() + ", '"
                    + NotificationListener.HAND_OVER_PREFIX + registrationId(key) + ":" + token
                    + ":1000000:2000000:" + PostgresWaiterRelay.check(owner, token) + "'");

            assertThat(told.get(30, TimeUnit.SECONDS).fencingToken()).isEqualTo(token);
        }
    }

    @Test
    void onAKeyPassedBackAndForthAWaitTakesOneStatementAndAReleaseOnePlusItsWakeUp() throws Exception {
        String key = key();
        CountingDataSource countingA = new CountingDataSource(physical());
        CountingDataSource countingB = new CountingDataSource(physical());
        PostgresLockManager a = patientClient(pool(countingA, 2));
        PostgresLockManager b = patientClient(pool(countingB, 2));
        a.acquire(key(), HOLD).release(); // the schema check and the pools are not the subject
        b.acquire(key(), HOLD).release();

        // One round each way: the clients see the key waited for.
        Lease aHolds = a.acquire(key, HOLD);
        Lease bHolds = handOver(aHolds, b, key);
        aHolds = handOver(bHolds, a, key);

        countingB.reset();
        CompletableFuture<Lease> bWaits = CompletableFuture.supplyAsync(() -> b.acquire(key, WAIT), threads);
        await().atMost(Duration.ofSeconds(10)).until(() -> registrations(key) == 1);
        assertThat(statementsOf(countingB))
                .as("statements of a wait for a key that this client found busy a moment ago, up to its registration")
                .hasSize(1);
        countingA.reset();
        assertThat(aHolds.release()).isTrue();
        // The release that hands the key over, then, once it has committed, the wake-up in a transaction of its own:
        // a NOTIFY inside the durable hand-over would hold the server's notify lock across its WAL flush.
        assertThat(statementsOf(countingA))
                .as("statements of a release of a key that was waited for at its last release")
                .satisfiesExactly(
                        release -> assertThat(release).doesNotContain("pg_notify"),
                        wakeUp -> assertThat(wakeUp).contains("pg_notify"));
        Lease handed = bWaits.get(30, TimeUnit.SECONDS);
        assertThat(handed.fencingToken()).isGreaterThan(aHolds.fencingToken());
        assertThat(handed.release()).isTrue();
    }

    /** {@code holding}'s lease, released while {@code next} waits for the key: the lease handed to {@code next}. */
    private Lease handOver(Lease holding, LockManager next, String key) throws Exception {
        CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(() -> next.acquire(key, WAIT), threads);
        await().atMost(Duration.ofSeconds(10)).until(() -> registrations(key) == 1);
        assertThat(holding.release()).isTrue();
        return waiting.get(30, TimeUnit.SECONDS);
    }

    private static List<String> statementsOf(CountingDataSource counting) {
        return counting.executedSql().stream()
                .filter(sql -> !sql.startsWith("LISTEN") && !sql.equals("SELECT 1"))
                .toList();
    }

    @Test
    void waitersOfSeveralClientsAreHandedTheKeyInTheOrderTheyRegistered() throws Exception {
        String key = key();
        LockManager holder = closer.add(PostgresLockManager.create(db.dataSource()));
        Lease first = holder.acquire(key, HOLD);
        List<CompletableFuture<Long>> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            LockManager client = patientClient(db.dataSource());
            waiters.add(CompletableFuture.supplyAsync(
                    () -> {
                        try (Lease lease = client.acquire(key, WAIT)) {
                            return lease.fencingToken();
                        }
                    },
                    threads));
            int registered = i + 1;
            await().atMost(Duration.ofSeconds(10)).until(() -> registrations(key) == registered);
        }

        first.release();

        List<Long> tokens = new ArrayList<>();
        for (CompletableFuture<Long> waiter : waiters) {
            tokens.add(waiter.get(30, TimeUnit.SECONDS));
        }
        assertThat(tokens).as("tokens in arrival order").isSorted().doesNotHaveDuplicates();
        assertThat(tokens.get(0)).isGreaterThan(first.fencingToken());
    }

    @Test
    void aRegistrationWhoseWaiterStoppedRefreshingItLapsesAndIsNeverHandedTheKey() {
        // A waiter that registered and died: nobody refreshes its registration.
        DeadWaiter dead = deadWaiter(Duration.ofMillis(300), HOLD.leaseTime());
        await().atMost(Duration.ofSeconds(10)).until(() -> registrations(dead.key()) == 0);

        assertThat(dead.holdersLease().release()).isTrue();

        assertThat(dead.other().tryAcquire(dead.key(), HOLD))
                .as("the key is free at once")
                .isPresent();
    }

    @Test
    void aLiveRegistrationOfADeadWaiterHoldsTheKeyForItsLeaseTimeAtMost() {
        // Died right after it registered: the release still sees it live and hands it a one-second lease.
        DeadWaiter dead = deadWaiter(Duration.ofMinutes(1), Duration.ofSeconds(1));

        assertThat(dead.holdersLease().release()).isTrue();

        LockManager other = dead.other();
        assertThat(other.tryAcquire(dead.key(), HOLD))
                .as("handed to the dead waiter")
                .isEmpty();
        assertThat(other.inspect(dead.key()).orElseThrow().holder()).isEqualTo("dead waiter");
        Lease next = other.acquire(
                dead.key(), HOLD.toBuilder().waitTime(Duration.ofSeconds(20)).build());
        assertThat(next.fencingToken()).isGreaterThan(dead.holdersLease().fencingToken());
    }

    /** A key held by one client, a waiter that registered for it and died, and another client to try the key. */
    private record DeadWaiter(String key, Lease holdersLease, LockManager other) {}

    private DeadWaiter deadWaiter(Duration registrationTtl, Duration leaseTime) {
        String key = key();
        LockManager holder = closer.add(PostgresLockManager.create(db.dataSource()));
        Lease lease = holder.acquire(key, HOLD);
        register(key, registrationTtl, leaseTime);
        return new DeadWaiter(key, lease, closer.add(PostgresLockManager.create(db.dataSource())));
    }

    @Test
    void aWaiterThatWithdrawsWhileAReleaseHandsItTheKeyLearnsThatItHoldsIt() throws Exception {
        // A trigger parks the relayed release once it has locked the registration and drawn the token, before its
        // update of the lease row commits.
        db.execute("""
                CREATE OR REPLACE FUNCTION relay_test_gate() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.holder = 'parked waiter' THEN
                        PERFORM pg_advisory_xact_lock(4244);
                    END IF;
                    RETURN NEW;
                END $$;
                DROP TRIGGER IF EXISTS relay_test_gate ON distributed_lock;
                CREATE TRIGGER relay_test_gate BEFORE UPDATE ON distributed_lock
                    FOR EACH ROW EXECUTE FUNCTION relay_test_gate();
                """);
        String key = key();
        String holder = UUID.randomUUID().toString();
        PostgresLeaseStore store = storeWithKeyHeld(key, holder);
        String waiter = UUID.randomUUID().toString();
        Registration registration = new Registration(key, UUID.randomUUID().toString(), Duration.ofMinutes(1), false);
        assertThat(store.acquireOrRegister(
                        new AcquireRequest(key, waiter, "parked waiter", HOLD.leaseTime(), true), registration))
                .isInstanceOf(AcquireResult.Busy.class);

        CompletableFuture<Boolean> released;
        CompletableFuture<Boolean> withdrawn;
        try (Connection gate = db.adminDataSource().getConnection();
                Statement statement = gate.createStatement()) {
            statement.execute("SELECT pg_advisory_lock(4244)");
            released = CompletableFuture.supplyAsync(() -> store.release(ReleaseRequest.now(key, holder)), threads);
            await().atMost(Duration.ofSeconds(10)).until(() -> waitingOnLocks() == 1);
            withdrawn = CompletableFuture.supplyAsync(() -> store.withdraw(registration, waiter), threads);
            await().atMost(Duration.ofSeconds(10)).until(() -> waitingOnLocks() == 2);
        }

        assertThat(released.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(withdrawn.get(30, TimeUnit.SECONDS))
                .as("the key was handed to the registration while it withdrew")
                .isTrue();
        assertThat(store.inspect(key).orElseThrow().holder()).isEqualTo("parked waiter");
    }

    @Test
    void aFairWaiterThatAsksAgainAfterBeingHandedTheKeyHoldsItAndDoesNotQueueAgain() throws Exception {
        String key = key();
        String holder = UUID.randomUUID().toString();
        PostgresLeaseStore store = storeWithKeyHeld(key, holder);
        AcquireRequest first = new AcquireRequest(key, UUID.randomUUID().toString(), "first", HOLD.leaseTime(), true);
        Registration firstInLine = new Registration(key, UUID.randomUUID().toString(), Duration.ofMinutes(1), true);
        assertThat(store.acquireOrRegister(first, firstInLine)).isInstanceOf(AcquireResult.Busy.class);
        AcquireRequest second = new AcquireRequest(key, UUID.randomUUID().toString(), "second", HOLD.leaseTime(), true);
        Registration secondInLine = new Registration(key, UUID.randomUUID().toString(), Duration.ofMinutes(1), true);
        assertThat(store.acquireOrRegister(second, secondInLine)).isInstanceOf(AcquireResult.Busy.class);

        assertThat(store.release(ReleaseRequest.now(key, holder))).isTrue();
        LeaseInfo handed = store.inspect(key).orElseThrow();
        assertThat(handed.holder()).isEqualTo("first");

        // The first waiter asks again before the release's message reached it (a re-check, or a wake-up for the key).
        // Its registration is gone and the second one's is older than none, so its attempt in turn takes nothing;
        // but the key is its own.
        AcquireResult again = store.acquireOrRegister(first, firstInLine);
        assertThat(again).isInstanceOf(AcquireResult.Granted.class);
        assertThat(((AcquireResult.Granted) again).fencingToken()).isEqualTo(handed.fencingToken());
        assertThat(registrations(key))
                .as("only the second waiter's registration")
                .isEqualTo(1);

        assertThat(store.release(ReleaseRequest.now(key, first.ownerToken()))).isTrue();
        assertThat(store.inspect(key).orElseThrow().holder())
                .as("the next release serves the second waiter")
                .isEqualTo("second");
        assertThat(store.release(ReleaseRequest.now(key, second.ownerToken()))).isTrue();
        assertThat(store.inspect(key))
                .as("and the one after it frees the key: no registration of the first's ended wait is left to serve")
                .isEmpty();
    }

    /** A store of its own, on which {@code holder} holds {@code key}. */
    private PostgresLeaseStore storeWithKeyHeld(String key, String holder) {
        PostgresLeaseStore store =
                closer.add(new PostgresLeaseStore(db.dataSource(), "distributed_lock", Duration.ofSeconds(30)));
        assertThat(store.acquire(new AcquireRequest(key, holder, "holder", HOLD.leaseTime(), false)))
                .isInstanceOf(AcquireResult.Granted.class);
        return store;
    }

    private static int waitingOnLocks() throws SQLException {
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("""
                        SELECT count(*) FROM pg_stat_activity
                         WHERE datname = current_database() AND wait_event_type = 'Lock'
                        """)) {
            rows.next();
            return rows.getInt(1);
        }
    }

    @Test
    void aMessageWithoutTheWaitersCheckDoesNotMakeItTheHolder() throws Exception {
        String key = key();
        LockManager a = closer.add(PostgresLockManager.create(db.dataSource()));
        PostgresLockManager b = patientClient(db.dataSource());
        Lease first = a.acquire(key, HOLD);
        CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> b.acquire(key, WAIT), threads);
        await().atMost(Duration.ofSeconds(10)).until(() -> registrations(key) == 1);
        String registration = registrationId(key);

        // Anyone who may NOTIFY on the channel can send this; it names the registration but cannot know its check.
        // Sent on the table's channel and on the waiter's client's own, where a real grant arrives.
        String forged = "'fencepost-grant:" + registration + ":999999999:0:9999999999999999:0123456789abcdef'";
        String channel = TableName.of("distributed_lock").channel();
        db.execute("NOTIFY " + channel + ", " + forged);
        db.execute("NOTIFY " + channel + "_" + registration.substring(0, 4) + ", " + forged);
        assertThat(first.release()).isTrue();
        Lease handed = waiter.get(30, TimeUnit.SECONDS);

        assertThat(handed.fencingToken()).isNotEqualTo(999_999_999L);
        assertThat(a.inspect(key).orElseThrow().fencingToken()).isEqualTo(handed.fencingToken());
        handed.release();
    }

    private void register(String key, Duration ttl, Duration leaseTime) {
        PostgresLeaseStore dead =
                closer.add(new PostgresLeaseStore(db.dataSource(), "distributed_lock", Duration.ofSeconds(5)));
        AcquireResult result = dead.acquireOrRegister(
                new AcquireRequest(key, UUID.randomUUID().toString(), "dead waiter", leaseTime, true),
                new Registration(key, UUID.randomUUID().toString(), ttl, false));
        assertThat(result).isInstanceOf(AcquireResult.Busy.class);
    }

    private static int registrations(String key) throws SQLException {
        try (Connection connection = db.dataSource().getConnection();
                PreparedStatement query = connection.prepareStatement("""
                        SELECT count(*) FROM distributed_lock_queue
                         WHERE lock_key = ? AND owner_token IS NOT NULL AND expires_at > clock_timestamp()
                        """)) {
            query.setString(1, key);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    private static String registrationId(String key) throws SQLException {
        try (Connection connection = db.dataSource().getConnection();
                PreparedStatement query =
                        connection.prepareStatement("SELECT waiter FROM distributed_lock_queue WHERE lock_key = ?")) {
            query.setString(1, key);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getString(1);
            }
        }
    }

    private static PGSimpleDataSource physical() {
        PGSimpleDataSource physical = new PGSimpleDataSource();
        physical.setURL(db.jdbcUrl());
        return physical;
    }

    /** A fixed-size pool over {@code target}, closed after the test. */
    private HikariDataSource pool(javax.sql.DataSource target, int size) {
        return closer.add(FixedPool.over(target, size));
    }
}
