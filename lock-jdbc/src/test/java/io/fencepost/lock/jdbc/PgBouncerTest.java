package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.PgBouncer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Lock managers through PgBouncer in transaction pooling mode: driver-side prepared statements are refused at
 * start-up, notifications do not arrive (the listener notices and the health says so), and waiters in another
 * manager, as in another process, still get a released key quickly because they poll.
 */
@Tag("full")
class PgBouncerTest {

    @RegisterExtension
    static final PgBouncer bouncer = new PgBouncer("transaction");

    /** Far beyond any hand-off measured here: a waiter that trusted the push would wait this long. */
    private static final Duration PUSH_FALLBACK = Duration.ofSeconds(60);

    @BeforeAll
    static void createSchema() {
        new SchemaInitializer(bouncer.database().dataSource(), "distributed_lock").create();
    }

    @Test
    void driverSidePreparedStatementsAreRefusedAtStartUpWithTheSettingToChange() {
        DataSource defaults = bouncer.pool("", 5);

        assertThatThrownBy(() -> PostgresLockManager.builder(defaults).build())
                .isInstanceOf(UnsafeLockStoreException.class)
                .hasMessageContaining("pool_mode = transaction")
                .hasMessageContaining("prepareThreshold=5")
                .hasMessageContaining("add prepareThreshold=0 to the JDBC URL");
    }

    @Test
    void notificationsThatDoNotArriveAreReportedAndWaitersElsewhereGetTheKeyByPolling() throws Exception {
        try (PostgresLockManager holder = manager(bouncer.pool("prepareThreshold=0", 5));
                PostgresLockManager waiter = manager(bouncer.pool("prepareThreshold=0", 5))) {
            LockStoreHealth health = new LockStoreHealth(
                            bouncer.pool("prepareThreshold=0", 2), "distributed_lock", Duration.ofSeconds(5))
                    .withWakeUpsOf(waiter);
            List<Long> handOffMillis = new ArrayList<>();
            for (int round = 0; round < 15; round++) {
                String key = "bounced-" + round;
                Lease held = holder.acquire(key, LockOptions.of(Duration.ofSeconds(30)));
                CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> waiter.tryAcquire(
                        key,
                        LockOptions.builder()
                                .leaseTime(Duration.ofSeconds(30))
                                .waitTime(Duration.ofSeconds(120))
                                .build()));
                if (round == 0) {
                    await().atMost(Duration.ofSeconds(10))
                            .untilAsserted(() -> assertThat(health.check().details())
                                    .containsEntry("wakeUps", "polling")
                                    .containsKey("warnings"));
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> contended(key));
                long released = System.nanoTime();
                assertThat(held.release()).isTrue();
                Lease taken = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
                handOffMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released));
                assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
                taken.release();
            }
            Collections.sort(handOffMillis);
            long median = handOffMillis.get(handOffMillis.size() / 2);
            System.out.println("hand-off to a waiter in another manager through PgBouncer (transaction mode,"
                    + " polling): median " + median + " ms, max " + handOffMillis.get(handOffMillis.size() - 1)
                    + " ms, all " + handOffMillis);
            assertThat(median).as("median hand-off, ms").isLessThan(500);
        }
    }

    private static PostgresLockManager manager(DataSource dataSource) {
        return PostgresLockManager.builder(dataSource)
                .schemaMode(SchemaMode.VALIDATE)
                .pushFallback(PUSH_FALLBACK)
                .build();
    }

    /** Whether a waiter has marked the key's lease as waited for (it then waits in its acquire loop). */
    private static boolean contended(String key) throws SQLException {
        try (Connection connection = bouncer.database().adminDataSource().getConnection();
                PreparedStatement query =
                        connection.prepareStatement("SELECT contended FROM distributed_lock WHERE lock_key = ?")) {
            query.setString(1, key);
            try (ResultSet row = query.executeQuery()) {
                return row.next() && row.getBoolean(1);
            }
        }
    }
}
