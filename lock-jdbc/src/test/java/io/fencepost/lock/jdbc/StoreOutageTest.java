package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.jdbc.test.CloseAfterEach;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.jdbc.test.ProxiedPool;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The database gone behind HikariCP with its default settings (a 30 s connection timeout, 5 s validation): an acquire
 * fails with {@link LockStoreException} within the statement timeout, saying which bound fired, and the health
 * answers {@code DOWN} within a second.
 */
class StoreOutageTest {

    /** The statement timeout of these tests, short to keep them fast; the default pool waits 30 s. */
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    /** What the acceptance allows above the statement timeout. */
    private static final Duration WITHIN = TIMEOUT.plusSeconds(1);

    private static final LockOptions NO_WAIT = LockOptions.of(Duration.ofSeconds(30));

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    @RegisterExtension
    final CloseAfterEach closer = new CloseAfterEach();

    @Test
    void anAcquireFailsWithinTheStatementTimeoutWhenTheDatabaseStopsAnswering() throws Exception {
        ProxiedPool pool = closer.add(new ProxiedPool(db, config -> {}));
        PostgresLockManager locks = closer.add(pool.manager(TIMEOUT));
        locks.acquire("outage:warm", NO_WAIT).release();

        pool.proxy().stall();
        // A connection used a moment ago goes out unchecked, and its statement runs into the statement timeout; the
        // pool checks the others first (for up to its validation timeout, 5 s), and the wait for them is bounded.
        LockStoreException failure = timedAcquire(locks, "outage:blackhole");
        LockStoreException next = timedAcquire(locks, "outage:blackhole");

        assertThat(failure.getMessage())
                .startsWith("could not acquire lock 'outage:blackhole': ")
                .contains("within the statement timeout of 2 s (fencepost.jdbc.statement-timeout");
        assertThat(next.getMessage())
                .isEqualTo("could not acquire lock 'outage:blackhole': no connection from the DataSource within the"
                        + " statement timeout of 2 s (fencepost.jdbc.statement-timeout, which bounds the wait for a"
                        + " connection too): the database is unreachable or the pool is exhausted; check the database"
                        + " connection and the pool's size");
        assertNoOwnerToken(next);
        assertNoOwnerToken(failure);
        pool.proxy().resume();
    }

    @Test
    void anAcquireFailsWithinTheStatementTimeoutWhenTheDatabaseRefusesConnections() throws Exception {
        ProxiedPool pool = closer.add(new ProxiedPool(db, config -> {}));
        PostgresLockManager locks = closer.add(pool.manager(TIMEOUT));
        locks.acquire("outage:warm", NO_WAIT).release();

        pool.proxy().refuse();
        // The pool hands out the connections it holds, which fail at once as the proxy closed them; once it has
        // evicted them all, it has none to give, and the wait for one is what the statement timeout bounds.
        LockStoreException failure = null;
        for (int attempt = 0; attempt <= 10; attempt++) {
            failure = timedAcquire(locks, "outage:refused");
            if (failure.getMessage().contains("no connection")) {
                break;
            }
            assertThat(failure.getMessage()).contains("SQLState 08");
        }

        assertThat(failure.getMessage())
                .isEqualTo("could not acquire lock 'outage:refused': no connection from the DataSource within the"
                        + " statement timeout of 2 s (fencepost.jdbc.statement-timeout, which bounds the wait for a"
                        + " connection too): the database is unreachable or the pool is exhausted; check the database"
                        + " connection and the pool's size");
    }

    @Test
    void theHealthAnswersDownAtOnceOnceALockCallFoundTheDatabaseGone() throws Exception {
        ProxiedPool pool = closer.add(new ProxiedPool(db, config -> {}));
        PostgresLockManager locks = closer.add(pool.manager(TIMEOUT));
        LockStoreHealth health =
                new LockStoreHealth(pool.dataSource(), locks.tableName(), TIMEOUT).withLockCallsOf(locks);
        assertThat(health.check().up()).isTrue();

        pool.proxy().stall();
        timedAcquire(locks, "outage:health");
        long start = System.nanoTime();
        LockStoreHealth.Report report = health.check();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(100));
        assertThat(report.up()).isFalse();
        assertThat(report.details())
                .containsKey("unreachableSince")
                .extractingByKey("error")
                .asString()
                .startsWith("the lock store cannot be reached: ")
                .contains("statement timeout of 2 s")
                .doesNotContain("outage:health");

        pool.proxy().resume();
        await().atMost(Duration.ofSeconds(10)).until(() -> health.check().up());
    }

    @Test
    void theHealthAnswersDownWithinASecondWhenNothingNoticedTheOutageYet() throws Exception {
        ProxiedPool pool = closer.add(new ProxiedPool(db, config -> {}));
        LockStoreHealth health = new LockStoreHealth(pool.dataSource(), "distributed_lock", TIMEOUT);
        closer.add(pool.manager(TIMEOUT)); // creates the table
        assertThat(health.check().up()).isTrue();

        pool.proxy().stall();
        long start = System.nanoTime();
        LockStoreHealth.Report report = health.check();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
        assertThat(report.up()).isFalse();
        assertThat(report.details())
                .extractingByKey("error")
                .asString()
                .startsWith("the database did not answer the health probe within 800 ms");
        pool.proxy().resume();
    }

    /** Acquires {@code key} without waiting, and returns how it failed, within {@link #WITHIN}. */
    private static LockStoreException timedAcquire(PostgresLockManager locks, String key) {
        long start = System.nanoTime();
        LockStoreException failure = null;
        try {
            locks.tryAcquire(key, NO_WAIT);
        } catch (LockStoreException e) {
            failure = e;
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(failure).as("a store failure").isNotNull();
        assertThat(took)
                .as("failed within the statement timeout + 1 s: %s", failure.getMessage())
                .isLessThan(WITHIN);
        return failure;
    }

    private static void assertNoOwnerToken(LockStoreException failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            assertThat(String.valueOf(t.getMessage()))
                    .doesNotContainPattern("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
        }
    }
}
