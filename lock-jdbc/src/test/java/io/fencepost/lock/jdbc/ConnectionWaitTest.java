package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.jdbc.test.CloseAfterEach;
import io.fencepost.lock.jdbc.test.DelegatingDataSource;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The bounded wait for a pool's connection: it ends at its bound, and a connection that comes later goes back. */
class ConnectionWaitTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    @RegisterExtension
    final CloseAfterEach closer = new CloseAfterEach();

    @Test
    void aConnectionThatArrivesAfterTheBoundIsGivenBackToThePool() throws Exception {
        HikariDataSource pool = closer.add(pool());
        CountDownLatch poolAnswers = new CountDownLatch(1);
        CountDownLatch handedOut = new CountDownLatch(1);
        ConnectionWait wait = new ConnectionWait(new DelegatingDataSource(pool) {
            @Override
            public Connection getConnection() throws SQLException {
                try {
                    poolAnswers.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                try {
                    return super.getConnection();
                } finally {
                    handedOut.countDown();
                }
            }
        });
        long start = System.nanoTime();

        assertThatThrownBy(() -> wait.obtain(TimeUnit.MILLISECONDS.toNanos(200)))
                .isInstanceOf(ConnectionWait.TimedOut.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));

        poolAnswers.countDown();
        assertThat(handedOut.await(5, TimeUnit.SECONDS))
                .as("the pool handed out the late connection")
                .isTrue();
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(pool.getHikariPoolMXBean().getActiveConnections())
                        .as("and given back")
                        .isZero());
    }

    @Test
    void aConnectionInTimeIsTheCallersAndAFailureOfThePoolIsItsOwn() throws Exception {
        HikariDataSource pool = closer.add(pool());
        try (Connection connection = new ConnectionWait(pool).obtain(TimeUnit.SECONDS.toNanos(5))) {
            assertThat(connection.isValid(1)).isTrue();
            assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isEqualTo(1);
        }
        SQLException refused = new SQLException("refused", "08001");
        ConnectionWait failing = new ConnectionWait(new DelegatingDataSource(pool) {
            @Override
            public Connection getConnection() throws SQLException {
                throw refused;
            }
        });

        assertThatThrownBy(() -> failing.obtain(TimeUnit.SECONDS.toNanos(5))).isSameAs(refused);
    }

    private static HikariDataSource pool() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.jdbcUrl());
        config.setMaximumPoolSize(1);
        return new HikariDataSource(config);
    }
}
