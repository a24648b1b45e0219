package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.CloseAfterEach;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.jdbc.test.TcpProxy;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A store outage in the log: one WARNING line when renewal and the notification listener lose the store, with the
 * cause and no stack trace, and one line each when they are back, however many retries fail in between.
 */
class StoreOutageLogTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    @RegisterExtension
    final CloseAfterEach closer = new CloseAfterEach();

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    private final Logger fencepost = Logger.getLogger("io.fencepost");

    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    private Level level;

    @BeforeEach
    void captureLogs() {
        level = fencepost.getLevel();
        fencepost.setLevel(Level.ALL);
        capture.setLevel(Level.ALL);
        fencepost.addHandler(capture);
    }

    @AfterEach
    void stopCapturing() {
        fencepost.removeHandler(capture);
        fencepost.setLevel(level);
    }

    @Test
    void anOutageIsOneWarningPerPartAndALineWhenItIsBack() throws Exception {
        URI uri = URI.create(db.jdbcUrl().substring("jdbc:".length()));
        TcpProxy proxy = closer.add(new TcpProxy(uri.getHost(), uri.getPort()));
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.jdbcUrl().replaceFirst(":" + uri.getPort() + "/", ":" + proxy.port() + "/"));
        config.setMaximumPoolSize(3);
        config.setConnectionTimeout(500);
        HikariDataSource throughProxy = closer.add(new HikariDataSource(config));
        PostgresLockManager locks = closer.add(PostgresLockManager.builder(throughProxy)
                .statementTimeout(Duration.ofMillis(500))
                .build());
        PostgresLockManager elsewhere = closer.add(PostgresLockManager.create(db.dataSource()));
        Lease held = locks.acquire("outage:held", LockOptions.of(Duration.ofSeconds(6)));
        // A wait for a busy key starts the manager's notification listener.
        Lease busy = elsewhere.acquire("outage:busy", LockOptions.of(Duration.ofSeconds(30)));
        assertThat(locks.tryAcquire(
                        "outage:busy",
                        LockOptions.builder().waitTime(Duration.ofMillis(300)).build()))
                .isEmpty();
        busy.release();

        proxy.retarget(deadPort());
        proxy.cut();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> failures("NotificationListener") >= 3 && failures("Renewer") >= 3);
        proxy.retarget(uri.getPort());
        await().atMost(Duration.ofSeconds(20))
                .until(() -> rendered(Level.INFO).stream()
                                .anyMatch(line -> line.contains("notification listener reconnected after"))
                        && rendered(Level.INFO).stream()
                                .anyMatch(line -> line.contains("renewal reaches the lock store again after")));

        assertThat(rendered(Level.WARNING))
                .filteredOn(line -> line.contains("notification listener lost its connection"))
                .hasSize(1);
        assertThat(rendered(Level.WARNING))
                .filteredOn(line -> line.contains("renewal cannot reach the lock store"))
                .hasSize(1)
                .allMatch(line -> line.contains("("), "names the cause");
        assertThat(records)
                .filteredOn(record -> record.getLevel().intValue() >= Level.WARNING.intValue())
                .allMatch(record -> record.getThrown() == null, "no stack trace at WARNING");
        assertThat(held.isHeld()).as("the lease rode out the outage").isTrue();
        held.release();
    }

    /** How many failures of {@code part} went to the DEBUG log (each with its stack trace). */
    private long failures(String part) {
        return records.stream()
                .filter(record -> record.getLoggerName().endsWith("." + part))
                .filter(record -> record.getLevel() == Level.FINE && record.getThrown() != null)
                .count();
    }

    private List<String> rendered(Level level) {
        SimpleFormatter formatter = new SimpleFormatter();
        return records.stream()
                .filter(record -> record.getLevel() == level)
                .map(formatter::formatMessage)
                .toList();
    }

    private static int deadPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort(); // closed again: connections to it are refused
        }
    }
}
