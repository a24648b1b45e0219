package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.CloseAfterEach;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The engine's use of the server's lock queue between managers: a waiter blocked in the queue is not registered (so no
 * release hands it the key where it could not notice), and the release of the lease that the head of the queue got
 * wakes the next waiter there, long before any bounded wait would have ended.
 */
class QueueHandOffTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    @RegisterExtension
    final CloseAfterEach closer = new CloseAfterEach();

    private final ExecutorService threads = Executors.newCachedThreadPool();

    private static final LockOptions HOLD = LockOptions.of(Duration.ofMinutes(5));

    private static final LockOptions WAIT =
            HOLD.toBuilder().waitTime(Duration.ofMinutes(2)).build();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @BeforeAll
    static void createSchema() {
        new SchemaInitializer(db.dataSource(), "distributed_lock").create();
    }

    /**
     * A manager whose single waits in the queue last up to 30 s (the push fallback, and half of its statement timeout)
     * and that re-checks only as rarely: a waiter that got the key sooner was woken by a release.
     */
    private PostgresLockManager patientClient() {
        return closer.add(PostgresLockManager.builder(db.dataSource())
                .statementTimeout(Duration.ofMinutes(1))
                .pushFallback(Duration.ofSeconds(30))
                .retryBackoff(Duration.ofSeconds(30), Duration.ofSeconds(30))
                .build());
    }

    @Test
    void theReleaseOfTheLeaseTheHeadGotWakesTheNextWaiterInTheQueue() throws Exception {
        String key = "queue:" + UUID.randomUUID();
        PostgresLockManager first = patientClient();
        PostgresLockManager second = patientClient();
        PostgresLockManager third = patientClient();
        Lease held = first.acquire(key, HOLD);

        // The second waits at the head of the queue and, finding the key busy, registers: it is handed the key.
        CompletableFuture<Lease> head = CompletableFuture.supplyAsync(() -> second.acquire(key, WAIT), threads);
        await().atMost(Duration.ofSeconds(10)).until(() -> registrations(key) == 1);
        // The third waits behind it in the queue, unregistered.
        CompletableFuture<Lease> next = CompletableFuture.supplyAsync(() -> third.acquire(key, WAIT), threads);
        await().atMost(Duration.ofSeconds(10)).until(() -> waitingInTheQueue() == 1);
        assertThat(registrations(key)).isEqualTo(1);

        held.release();
        Lease headsLease = head.get(10, TimeUnit.SECONDS);
        assertThat(next).isNotDone();
        assertThat(registrations(key)).as("the waiter blocked in the queue").isZero();

        headsLease.release();
        Lease nextLease = next.get(10, TimeUnit.SECONDS);
        assertThat(nextLease.fencingToken()).isGreaterThan(headsLease.fencingToken());
        assertThat(waitingInTheQueue()).isZero();
        nextLease.release();
    }

    private static int registrations(String key) throws SQLException {
        try (Connection connection = db.dataSource().getConnection();
                PreparedStatement query =
                        connection.prepareStatement("SELECT count(*) FROM distributed_lock_queue WHERE lock_key = ?")) {
            query.setString(1, key);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    private static long waitingInTheQueue() throws SQLException {
        try (Connection connection = db.dataSource().getConnection();
                PreparedStatement query = connection.prepareStatement("SELECT count(*) FROM pg_locks"
                        + " WHERE locktype = 'advisory' AND NOT granted AND classid::int = ?"
                        + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")) {
            query.setInt(1, TableName.of("distributed_lock").queueClassId());
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
