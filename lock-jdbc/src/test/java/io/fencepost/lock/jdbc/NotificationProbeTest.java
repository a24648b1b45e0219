package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.DelegatingDataSource;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.test.LogCapture;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The listener's delivery probe: on a connection that answers queries but never hears a notification (as behind a
 * pooler in transaction mode, simulated here by a connection whose LISTEN does nothing), the listener notices within
 * seconds, the health says so, and waiters poll rather than wait for the push fallback.
 */
@Tag("server-version")
class NotificationProbeTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    @RegisterExtension
    final LogCapture logs = new LogCapture("io.fencepost");

    private static final Duration LONG_FALLBACK = Duration.ofSeconds(60);

    @Test
    void aListenerThatHearsItsProbesReportsPush() throws Exception {
        try (PostgresLockManager holder = manager(db.dataSource());
                PostgresLockManager waiter = manager(db.dataSource())) {
            LockStoreHealth health = health(db.dataSource()).withWakeUpsOf(waiter);
            assertThat(health.check().details()).containsEntry("wakeUps", "not started");

            String key = "probe-push";
            Lease held = holder.acquire(key, LockOptions.of(Duration.ofSeconds(30)));
            CompletableFuture<Optional<Lease>> waiting = waitFor(waiter, key);
            assertWokenByPush(health);

            held.release();
            assertThat(waiting.get(5, TimeUnit.SECONDS)).isPresent().get().satisfies(Lease::release);
        }
    }

    @Test
    void aListenerThatHearsNothingIsDetectedAndWaitersPoll() throws Exception {
        DataSource deaf = new DeafListenDataSource(db.unpooledDataSource());
        try (PostgresLockManager holder = manager(db.dataSource());
                PostgresLockManager waiter = manager(deaf)) {
            LockStoreHealth health = health(deaf).withWakeUpsOf(waiter);
            String key = "probe-deaf";
            Lease held = holder.acquire(key, LockOptions.of(Duration.ofSeconds(30)));
            CompletableFuture<Optional<Lease>> waiting = waitFor(waiter, key);

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                LockStoreHealth.Report report = health.check();
                assertThat(report.up()).isTrue();
                assertThat(report.details()).containsEntry("wakeUps", "polling");
                assertThat(report.details().get("warnings"))
                        .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
                        .anySatisfy(warning -> assertThat((String) warning)
                                .contains("notifications do not reach the lock manager's LISTEN connection")
                                .contains("pool_mode = transaction"));
            });

            // The release's notification never arrives; trusting it, the waiter would sleep the 60 s fallback.
            held.release();
            assertThat(waiting.get(10, TimeUnit.SECONDS)).isPresent().get().satisfies(Lease::release);
        }
    }

    @Test
    void aProbeThatCannotBeSentIsLoggedWithItsCause() throws Exception {
        RefusingAfterListenDataSource refusing = new RefusingAfterListenDataSource(db.unpooledDataSource());
        try (PostgresLockManager holder = manager(db.dataSource());
                PostgresLockManager waiter = manager(refusing)) {
            String key = "probe-unsent";
            Lease held = holder.acquire(key, LockOptions.of(Duration.ofSeconds(30)));
            CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> waiter.tryAcquire(
                    key, LockOptions.builder().waitTime(Duration.ofSeconds(2)).build()));

            // The listener's LISTEN went through; the probe right after it needs another connection, which fails.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> logs.rendered(Level.FINE).stream().anyMatch(line -> line.contains("delivery probe")));
            assertThat(logs.rendered(Level.FINE))
                    .filteredOn(line -> line.contains("delivery probe"))
                    .allSatisfy(line -> assertThat(line)
                            .contains(RefusingAfterListenDataSource.REFUSAL)
                            .doesNotContain("{0}"));
            refusing.admit();
            held.release();
            waiting.handle((lease, failure) -> lease).get(10, TimeUnit.SECONDS);
        }
    }

    private static PostgresLockManager manager(DataSource dataSource) {
        return PostgresLockManager.builder(dataSource)
                .pushFallback(LONG_FALLBACK)
                .build();
    }

    /** The listener hears its probes: push wake-ups reported, and still so after a probe had time to be lost. */
    static void assertWokenByPush(LockStoreHealth health) {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(health.check().details()).containsEntry("wakeUps", "push"));
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            Map<String, Object> details = health.check().details();
            assertThat(details).containsEntry("wakeUps", "push");
            // Other warnings (an embedded test server runs with fsync off) are not this test's subject.
            assertThat(String.valueOf(details.getOrDefault("warnings", List.of())))
                    .doesNotContain("notifications");
        });
    }

    private static LockStoreHealth health(DataSource dataSource) {
        return new LockStoreHealth(dataSource, PostgresLockManager.DEFAULT_TABLE_NAME, Duration.ofSeconds(5));
    }

    private static CompletableFuture<Optional<Lease>> waitFor(PostgresLockManager manager, String key) {
        LockOptions options = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(30))
                .waitTime(Duration.ofSeconds(120))
                .build();
        return CompletableFuture.supplyAsync(() -> manager.tryAcquire(key, options));
    }

    /** Connections whose LISTEN statements do nothing: they answer every query, and hear no notification. */
    private static final class DeafListenDataSource extends DelegatingDataSource {

        DeafListenDataSource(DataSource target) {
            super(target);
        }

        @Override
        public Connection getConnection() throws SQLException {
            return onListen(super.getConnection(), (statement, sql) -> statement.execute("SELECT 1"));
        }
    }

    /** Connections until one of them has run {@code LISTEN}; then no more, until {@link #admit()}. */
    private static final class RefusingAfterListenDataSource extends DelegatingDataSource {

        static final String REFUSAL = "no connection for the test after LISTEN";

        private volatile boolean refusing;

        RefusingAfterListenDataSource(DataSource target) {
            super(target);
        }

        void admit() {
            refusing = false;
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (refusing) {
                throw new SQLException(REFUSAL, "08001");
            }
            return onListen(super.getConnection(), (statement, sql) -> {
                statement.execute(sql);
                refusing = true;
            });
        }
    }

    /** What a wrapped connection runs for a {@code LISTEN} statement, given the statement and that SQL. */
    private interface ListenHook {
        void run(Statement statement, String listenSql) throws SQLException;
    }

    /** {@code connection}, whose plain statements run {@code hook} instead of any {@code LISTEN}. */
    private static Connection onListen(Connection connection, ListenHook hook) {
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    Object result = invoke(connection, method, args);
                    if (result instanceof Statement statement
                            && method.getName().equals("createStatement")) {
                        return (Statement) Proxy.newProxyInstance(
                                Statement.class.getClassLoader(), new Class<?>[] {Statement.class}, (p, m, a) -> {
                                    if (m.getName().equals("execute")
                                            && a != null
                                            && a.length == 1
                                            && a[0] instanceof String sql
                                            && sql.startsWith("LISTEN ")) {
                                        hook.run(statement, sql);
                                        return false;
                                    }
                                    return invoke(statement, m, a);
                                });
                    }
                    return result;
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
