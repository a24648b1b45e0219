package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.LockQueue;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
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

    private final ExecutorService threads = Executors.newCachedThreadPool();

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
