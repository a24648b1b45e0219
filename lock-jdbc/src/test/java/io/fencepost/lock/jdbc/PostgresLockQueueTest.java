package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LockQueue;
import io.fencepost.lock.spi.ReleaseRequest;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
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

/**
 * The server's lock queue as the store offers it: one place per key at a time, the next waiter woken in the server
 * when the place before it is left, every wait bounded, and at most the configured number of sessions held.
 */
@Tag("server-version")
class PostgresLockQueueTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    /** Hand-offs in the test of woken waiters: a race that each one could lose shows in a few hundred. */
    private static final int HAND_OFFS = 300;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void createSchema() {
        new SchemaInitializer(db.dataSource(), "distributed_lock").create();
    }

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private static String key() {
        return "queue:" + UUID.randomUUID();
    }

    private PostgresLockQueue queue(int sessions) {
        TableName table = TableName.of("distributed_lock");
        return new PostgresLockQueue(
                db.dataSource(), table, Duration.ofSeconds(5), sessions, new PostgresStatements(table), request -> {
                    throw new AssertionError("no release in these tests");
                });
    }

    @Test
    void aSecondWaiterGetsThePlaceWhenTheFirstLeavesItAndNotBefore() throws Exception {
        String key = key();
        PostgresLockQueue first = queue(1);
        PostgresLockQueue second = queue(1);
        LockQueue.Place head = first.enter(key, Duration.ofSeconds(1)).orElseThrow();
        assertThat(head.waitedBehindOthers()).isFalse();

        CompletableFuture<Optional<LockQueue.Place>> next =
                CompletableFuture.supplyAsync(() -> second.enter(key, Duration.ofSeconds(2)), threads);
        await().atMost(Duration.ofSeconds(10)).until(() -> waitingInTheServer() == 1);
        assertThat(next).isNotDone();

        head.leave();
        LockQueue.Place place = next.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(place.waitedBehindOthers()).isTrue();
        assertThat(first.enter(key, Duration.ofMillis(50)))
                .as("a third waiter while the second holds the place")
                .isEmpty();
        place.leave();
        assertThat(first.enter(key, Duration.ofMillis(50))).isPresent().get().satisfies(LockQueue.Place::leave);
    }

    @Test
    void aWaitEndsEmptyAfterItsTimeoutAndLeavesNothingBehind() {
        String key = key();
        LockQueue.Place head = queue(1).enter(key, Duration.ofSeconds(1)).orElseThrow();
        PostgresLockQueue other = queue(1);

        assertThat(other.enter(key, Duration.ofMillis(100))).isEmpty();
        assertThat(waitingInTheServer()).isZero();
        head.leave();
        assertThat(other.enter(key, Duration.ofMillis(100))).isPresent().get().satisfies(LockQueue.Place::leave);
        assertThat(advisoryLocksHeld()).isZero();
    }

    @Test
    void pastItsSessionsTheQueueAnswersEmptyAtOnceAndALeftPlaceFreesOne() {
        PostgresLockQueue queue = queue(1);
        LockQueue.Place one = queue.enter(key(), Duration.ofSeconds(1)).orElseThrow();

        long start = System.nanoTime();
        assertThat(queue.enter(key(), Duration.ofSeconds(5))).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));

        one.leave();
        one.leave(); // idempotent: the session went back once
        assertThat(queue.enter(key(), Duration.ofSeconds(1))).isPresent().get().satisfies(LockQueue.Place::leave);
    }

    @Test
    void aPlaceWhoseSessionDiesFreesTheKeyForTheNextWaiter() throws Exception {
        String key = key();
        LockQueue.Place head = queue(1).enter(key, Duration.ofSeconds(1)).orElseThrow();
        CompletableFuture<Optional<LockQueue.Place>> next =
                CompletableFuture.supplyAsync(() -> queue(1).enter(key, Duration.ofSeconds(4)), threads);
        await().atMost(Duration.ofSeconds(10)).until(() -> waitingInTheServer() == 1);

        db.execute("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                + " AND classid::int = " + TableName.of("distributed_lock").queueClassId()
                + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())");

        assertThat(next.get(10, TimeUnit.SECONDS)).isPresent().get().satisfies(LockQueue.Place::leave);
        head.leave(); // its session is gone: leaving discards the connection and never fails
    }

    /**
     * A release at the head of the queue leaves its place before it deletes its row, so that the next waiter's wake-up
     * runs beside the delete; the row lock it takes first makes that waiter's attempt wait for the delete instead of
     * finding the lease still live, which would send it the slow way (registered, woken by a message). So every woken
     * waiter is granted by its first attempt, however fast it comes back.
     */
    @Test
    void aWaiterWokenByAReleaseIsGrantedByItsFirstAttempt() throws Exception {
        String key = key();
        Duration lease = Duration.ofSeconds(30);
        try (PostgresLeaseStore first = store();
                PostgresLeaseStore second = store()) {
            String owner = UUID.randomUUID().toString();
            LockQueue.Place place = first.enter(key, Duration.ofSeconds(1)).orElseThrow();
            assertThat(first.acquire(new AcquireRequest(key, owner, "first", lease, true)))
                    .isInstanceOf(AcquireResult.Granted.class);
            PostgresLeaseStore waiter = second;
            for (int handOff = 1; handOff <= HAND_OFFS; handOff++) {
                String next = UUID.randomUUID().toString();
                PostgresLeaseStore store = waiter;
                CompletableFuture<Map.Entry<LockQueue.Place, AcquireResult>> woken = CompletableFuture.supplyAsync(
                        () -> {
                            LockQueue.Place own =
                                    store.enter(key, Duration.ofSeconds(5)).orElseThrow();
                            // on the thread that took the place: the attempt runs on its session, as the engine's does
                            return Map.entry(own, store.acquire(new AcquireRequest(key, next, "next", lease, true)));
                        },
                        threads);
                await().atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(2))
                        .until(() -> waitingInTheServer() == 1);

                assertThat(place.releaseAndLeave(ReleaseRequest.now(key, owner)))
                        .isTrue();

                Map.Entry<LockQueue.Place, AcquireResult> got = woken.get(10, TimeUnit.SECONDS);
                assertThat(got.getValue())
                        .as("the first attempt of the waiter woken by hand-off %d", handOff)
                        .isInstanceOf(AcquireResult.Granted.class);
                place = got.getKey();
                owner = next;
                waiter = waiter == second ? first : second;
            }
            assertThat(place.releaseAndLeave(ReleaseRequest.now(key, owner))).isTrue();
        }
        assertThat(advisoryLocksHeld()).isZero();
    }

    private static PostgresLeaseStore store() {
        return new PostgresLeaseStore(db.dataSource(), "distributed_lock", Duration.ofSeconds(5));
    }

    private static long waitingInTheServer() {
        return count("NOT granted");
    }

    private static long advisoryLocksHeld() {
        return count("granted");
    }

    private static long count(String condition) {
        try (var connection = db.dataSource().getConnection();
                var statement = connection.createStatement();
                var row = statement.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
                        + condition + " AND classid::int = "
                        + TableName.of("distributed_lock").queueClassId()
                        + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")) {
            row.next();
            return row.getLong(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
