package io.fencepost.lock.reliability.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.reliability.support.Options;
import io.fencepost.lock.reliability.support.Pools;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fencepost's log messages must render: {@code System.Logger} formats them with {@link java.text.MessageFormat}, where
 * a single quote starts a literal section, and does not format a message logged with a throwable at all. A listener
 * that loses its connection logs at WARNING and DEBUG, and its reconnect and delivery probe at INFO and DEBUG: none
 * may show a placeholder instead of its value.
 */
@Tag("full")
class LogMessageFormatTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    @Test
    void everyFencepostLogMessageRendersItsParameters() throws Exception {
        List<String> rendered = new CopyOnWriteArrayList<>();
        SimpleFormatter formatter = new SimpleFormatter();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                rendered.add(record.getLoggerName() + ": " + formatter.formatMessage(record));
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger fencepost = Logger.getLogger("io.fencepost");
        Level level = fencepost.getLevel();
        fencepost.setLevel(Level.ALL);
        capture.setLevel(Level.ALL);
        fencepost.addHandler(capture);
        try (HikariDataSource pool = Pools.hikari(db.jdbcUrl(), "format-probe", 4, 1_000);
                PostgresLockManager locks = PostgresLockManager.builder(pool).build();
                PostgresLockManager other =
                        PostgresLockManager.builder(db.dataSource()).build()) {
            Lease held = other.acquire("format:listen", LockOptions.of(Duration.ofSeconds(3)));
            CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() ->
                    locks.acquire("format:listen", Options.leaseAndWait(Duration.ofSeconds(2), Duration.ofSeconds(5))));
            Pools.awaitListener(db.jdbcUrl(), "format-probe");
            Pools.terminate(db.jdbcUrl(), "format-probe"); // the LISTEN connection among them
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> rendered.stream().anyMatch(r -> r.contains("notification listener lost")));
            held.release();
            waiter.get(10, TimeUnit.SECONDS).release();
        } finally {
            fencepost.removeHandler(capture);
            fencepost.setLevel(level);
        }
        assertThat(rendered).noneMatch(line -> line.contains("{0}") || line.contains("{1}"));
    }
}
