package io.fencepost.lock.reliability.support;

import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/** Small helpers for the tests' connections. */
public final class Pools {

    private Pools() {}

    /** A HikariCP pool on {@code url} whose connections carry {@code applicationName}, so tests can find them. */
    public static HikariDataSource hikari(String url, String applicationName, int size, long connectionTimeoutMillis) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(withParameters(url, "ApplicationName=" + applicationName + "&connectTimeout=2"));
        config.setPoolName(applicationName);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(connectionTimeoutMillis);
        config.setValidationTimeout(Math.max(250, Math.min(1_000, connectionTimeoutMillis - 1)));
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    /** {@code url} with {@code parameters} ({@code a=b&c=d}) appended. */
    public static String withParameters(String url, String parameters) {
        return url + (url.contains("?") ? "&" : "?") + parameters;
    }

    /** {@code url} pointing at {@code port} on loopback instead of its own host and port. */
    public static String viaPort(String url, int port) {
        return url.replaceFirst("jdbc:postgresql://[^/]+/", "jdbc:postgresql://127.0.0.1:" + port + "/");
    }

    /** Runs SQL on a fresh connection to {@code url}. */
    public static void execute(String url, String sql) {
        try (Connection connection = DriverManager.getConnection(url);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("[" + sql + "] failed: " + e.getMessage(), e);
        }
    }

    /** The first column of the first row of {@code sql}, as a long; {@code fallback} when there is no row. */
    public static long queryLong(String url, String sql, long fallback) {
        try (Connection connection = DriverManager.getConnection(url);
                PreparedStatement statement = connection.prepareStatement(sql);
                ResultSet rows = statement.executeQuery()) {
            return rows.next() ? rows.getLong(1) : fallback;
        } catch (SQLException e) {
            throw new IllegalStateException("[" + sql + "] failed: " + e.getMessage(), e);
        }
    }

    /**
     * Waits until a pool named {@code applicationName} holds a connection that listens (a lock manager's notification
     * listener, which starts with the manager's first wait) and returns its backend's process id.
     */
    public static long awaitListener(String adminUrl, String applicationName) {
        return await().atMost(Duration.ofSeconds(10))
                .until(
                        () -> queryLong(
                                adminUrl,
                                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                                        + " AND application_name = '" + applicationName.replace("'", "''") + "'"
                                        + " AND query LIKE 'LISTEN%'",
                                0),
                        pid -> pid > 0);
    }

    /** Waits until the backend {@code pid} is gone (after {@link #terminate}, for instance). */
    public static void awaitGone(String adminUrl, long pid) {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> queryLong(adminUrl, "SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid, 0) == 0);
    }

    /** Terminates every backend of this database whose application name is {@code applicationName}. */
    public static long terminate(String adminUrl, String applicationName) {
        return queryLong(
                adminUrl,
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database()"
                        + " AND application_name = '" + applicationName.replace("'", "''") + "'",
                0);
    }
}
