package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.MultiLease;
import io.fencepost.lock.jdbc.test.CloseAfterEach;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A set that waits for a key held elsewhere is woken by that key's release rather than by its next try: its busy
 * attempt marks the lease as waited for, as a single waiting acquire does, so the release sends the key's wake-up,
 * which the set's subscription to each of its keys receives.
 */
class WaitingSetWakeUpTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    @RegisterExtension
    final CloseAfterEach closer = new CloseAfterEach();

    private static final Duration LEASE = Duration.ofMinutes(5);

    /** Far longer than the bound on the set's grant below: only a wake-up gets it there in time. */
    private static final Duration SLOW_RETRIES = Duration.ofSeconds(30);

    @Test
    void aWaitingSetIsWokenByTheReleaseOfTheKeyItWaitsFor() throws Exception {
        LockManager holder =
                closer.add(PostgresLockManager.builder(db.dataSource()).build());
        LockManager waiter = closer.add(PostgresLockManager.builder(db.dataSource())
                .retryBackoff(SLOW_RETRIES, SLOW_RETRIES)
                .pushFallback(SLOW_RETRIES)
                .build());
        String free = "set-wake:" + UUID.randomUUID();
        String held = "set-wake:" + UUID.randomUUID();
        Lease busy = holder.acquire(held, LockOptions.of(LEASE));

        CompletableFuture<MultiLease> set = CompletableFuture.supplyAsync(() -> waiter.acquireAll(
                List.of(free, held),
                LockOptions.builder()
                        .leaseTime(LEASE)
                        .waitTime(Duration.ofMinutes(2))
                        .build()));
        await().atMost(Duration.ofSeconds(10)).until(() -> markedAsWaitedFor(held));
        assertThat(set).isNotDone();

        busy.release();

        MultiLease granted = set.get(5, TimeUnit.SECONDS);
        assertThat(granted.lease(held).fencingToken()).isGreaterThan(busy.fencingToken());
        granted.release();
    }

    private static boolean markedAsWaitedFor(String key) throws SQLException {
        try (Connection connection = db.dataSource().getConnection();
                PreparedStatement query =
                        connection.prepareStatement("SELECT contended FROM distributed_lock WHERE lock_key = ?")) {
            query.setString(1, key);
            try (ResultSet rows = query.executeQuery()) {
                return rows.next() && rows.getBoolean(1);
            }
        }
    }
}
