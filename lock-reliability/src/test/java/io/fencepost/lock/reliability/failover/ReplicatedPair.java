package io.fencepost.lock.reliability.failover;

import static org.awaitility.Awaitility.await;

import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.reliability.checker.CheckerSchema;
import io.fencepost.lock.reliability.support.FaultyProxy;
import io.fencepost.lock.reliability.support.LocalPostgres;
import io.fencepost.lock.reliability.support.Pools;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * A primary and one streaming standby ({@code standby1}) on loopback, the replication stream running through a
 * {@link FaultyProxy} so that a test can cut the standby off. Clients use a multi-host URL that always finds the
 * current primary, as applications behind a failover do.
 */
final class ReplicatedPair implements AutoCloseable {

    final LocalPostgres primary;

    final LocalPostgres standby;

    final FaultyProxy replication;

    private ReplicatedPair(LocalPostgres primary, LocalPostgres standby, FaultyProxy replication) {
        this.primary = primary;
        this.standby = standby;
        this.replication = replication;
    }

    /**
     * Starts the pair and waits until the standby streams (and, when {@code synchronous}, is the sync standby). Skips
     * the calling test, as {@link LocalPostgres#assumeAvailable()} does, where no clusters can be made.
     */
    static ReplicatedPair start(boolean synchronous) throws IOException {
        LocalPostgres.assumeAvailable();
        Map<String, String> settings = new HashMap<>();
        settings.put("wal_level", "replica");
        settings.put("max_wal_senders", "5");
        settings.put("wal_keep_size", "64MB");
        settings.put("synchronous_standby_names", synchronous ? "'FIRST 1 (standby1)'" : "''");
        LocalPostgres primary = LocalPostgres.init("primary", settings).start();
        FaultyProxy replication = null;
        LocalPostgres standby = null;
        try {
            replication = new FaultyProxy(primary.port());
            standby = primary.baseBackup(
                            "standby1",
                            replication.port(),
                            // promoted, it runs alone: waiting for a standby it does not have would stop every grant
                            Map.of("hot_standby", "on", "synchronous_standby_names", "''"))
                    .start();
            ReplicatedPair pair = new ReplicatedPair(primary, standby, replication);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> pair.replicationState().equals(synchronous ? "streaming/sync" : "streaming/async"));
            return pair;
        } catch (RuntimeException | IOException e) {
            if (standby != null) {
                standby.close();
            }
            if (replication != null) {
                replication.close();
            }
            primary.close();
            throw e;
        }
    }

    /**
     * Creates the checker's lock table through {@code pool} (so on whichever server is primary), and its history of
     * grants on the primary, which the failover tests compare against what clients were told.
     */
    void installCheckerSchema(DataSource pool) throws SQLException {
        PostgresLockManager.builder(pool)
                .tableName(CheckerSchema.LOCK_TABLE)
                .build()
                .close();
        try (Connection connection = DriverManager.getConnection(primary.jdbcUrl("postgres"))) {
            CheckerSchema.install(connection);
        }
    }

    /** The URL applications use: both servers, whichever is primary. */
    String clientUrl() {
        return "jdbc:postgresql://127.0.0.1:" + primary.port() + ",127.0.0.1:" + standby.port()
                + "/postgres?user=postgres&targetServerType=primary&hostRecheckSeconds=1&connectTimeout=2";
    }

    /** The standby's replication state as the primary sees it, such as {@code streaming/sync}. */
    String replicationState() {
        try (Connection connection = DriverManager.getConnection(primary.jdbcUrl("postgres"));
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT state || '/' || sync_state FROM pg_stat_replication"
                        + " WHERE application_name = 'standby1'")) {
            return rows.next() ? rows.getString(1) : "none";
        } catch (SQLException e) {
            return "unknown: " + e.getMessage();
        }
    }

    /** Waits until the standby has replayed everything the primary has written so far. */
    void awaitStandbyCaughtUp() {
        String lsn = queryString(primary.jdbcUrl("postgres"), "SELECT pg_current_wal_lsn()::text");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> "t"
                        .equals(queryString(
                                        standby.jdbcUrl("postgres"),
                                        "SELECT (pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn)::text")
                                .substring(0, 1)));
    }

    /** Crashes the primary and promotes the standby. */
    void failOver() {
        primary.crash();
        standby.promote();
    }

    static String queryString(String url, String sql) {
        try (Connection connection = DriverManager.getConnection(url);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("[" + sql + "] failed: " + e.getMessage(), e);
        }
    }

    void execute(String sql) {
        Pools.execute(primary.jdbcUrl("postgres"), sql);
    }

    @Override
    public void close() {
        replication.close();
        standby.close();
        primary.close();
    }
}
