package io.fencepost.lock.benchmarks;

import io.fencepost.lock.benchmarks.clients.RawSqlClient;
import io.fencepost.lock.benchmarks.clients.ShedLockClient;
import io.fencepost.lock.benchmarks.clients.SpringIntegrationClient;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark's own database: created fresh for the run, with every library's table, and dropped at the end. Also
 * reads the server's statistics (transactions committed in this database, WAL flushes of the cluster).
 */
public final class BenchDatabase implements AutoCloseable {

    /** What the server counted between two snapshots. */
    public record ServerCounts(long transactions, long walRecords, long walBytes, long walSyncs) {

        public ServerCounts minus(ServerCounts o) {
            return new ServerCounts(
                    transactions - o.transactions,
                    walRecords - o.walRecords,
                    walBytes - o.walBytes,
                    walSyncs - o.walSyncs);
        }
    }

    private final Settings settings;

    private final Connection admin;

    private BenchDatabase(Settings settings, Connection admin) {
        this.settings = settings;
        this.admin = admin;
    }

    /** Drops a left-over benchmark database, creates it anew and creates the competitors' tables in it. */
    public static BenchDatabase create(Settings settings) throws SQLException {
        Connection admin = DriverManager.getConnection(settings.jdbcUrl("postgres"), settings.pgUser(), null);
        admin.setAutoCommit(true);
        try (Statement statement = admin.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + settings.database() + " WITH (FORCE)");
            statement.execute("CREATE DATABASE " + settings.database());
        }
        BenchDatabase db = new BenchDatabase(settings, admin);
        try (Connection c = db.connect();
                Statement statement = c.createStatement()) {
            statement.execute(RawSqlClient.SCHEMA_SQL);
            statement.execute(ShedLockClient.SCHEMA_SQL);
            for (String ddl : SpringIntegrationClient.schemaStatements()) {
                statement.execute(ddl);
            }
        }
        return db;
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(settings.jdbcUrl(settings.database()), settings.pgUser(), null);
    }

    /**
     * Vacuums every table of the benchmark's database: each measurement starts on tables as autovacuum keeps them on a
     * production server. Every lock cycle inserts and deletes (or updates) a row, so a lock table that nobody vacuums
     * grows by hundreds of pages a second, and every statement then reads through dead rows; on a server whose
     * autovacuum is off (as on the CI machine) the figures would depend on how many cycles ran before.
     */
    public void vacuum() throws SQLException {
        try (Connection c = connect();
                Statement statement = c.createStatement()) {
            statement.execute("VACUUM");
        }
    }

    /** Server version and the settings that decide what a commit costs. */
    public Map<String, String> serverFacts() throws SQLException {
        Map<String, String> facts = new LinkedHashMap<>();
        try (Statement statement = admin.createStatement()) {
            try (ResultSet rows = statement.executeQuery("SHOW server_version")) {
                rows.next();
                facts.put("server_version", rows.getString(1));
            }
            try (ResultSet rows = statement.executeQuery("""
                    SELECT name, setting, unit FROM pg_settings
                     WHERE name IN ('synchronous_commit', 'fsync', 'wal_sync_method', 'commit_delay',
                                    'wal_writer_delay', 'shared_buffers', 'max_connections', 'wal_level',
                                    'autovacuum')
                     ORDER BY name""")) {
                while (rows.next()) {
                    String unit = rows.getString(3);
                    facts.put(rows.getString(1), rows.getString(2) + (unit == null ? "" : " × " + unit));
                }
            }
        }
        return facts;
    }

    /**
     * Transactions of this database and WAL activity of the whole cluster, as the statistics system has them now.
     * Backends report with a delay (at most once a second while busy, and at exit): callers close their pools and
     * {@link #awaitDisconnected wait for the backends to go} before taking a snapshot that must be complete.
     */
    public ServerCounts serverCounts() throws SQLException {
        try (Statement statement = admin.createStatement()) {
            statement.execute("SELECT pg_stat_clear_snapshot()");
            long transactions;
            try (PreparedStatement query = admin.prepareStatement(
                    "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = ?")) {
                query.setString(1, settings.database());
                try (ResultSet rows = query.executeQuery()) {
                    rows.next();
                    transactions = rows.getLong(1);
                }
            }
            try (ResultSet rows = statement.executeQuery("SELECT wal_records, wal_bytes, wal_sync FROM pg_stat_wal")) {
                rows.next();
                return new ServerCounts(transactions, rows.getLong(1), rows.getLong(2), rows.getLong(3));
            }
        }
    }

    /**
     * Rows that queries of every other database have inserted, updated or deleted, as the statistics system has them
     * now: a sign that someone else was writing, and so flushing WAL, meanwhile. The harness's own connection to the
     * {@code postgres} database only reads.
     */
    public long rowsWrittenElsewhere() throws SQLException {
        try (Statement statement = admin.createStatement()) {
            statement.execute("SELECT pg_stat_clear_snapshot()");
        }
        try (PreparedStatement query = admin.prepareStatement(
                "SELECT coalesce(sum(tup_inserted + tup_updated + tup_deleted), 0) FROM pg_stat_database"
                        + " WHERE datname IS DISTINCT FROM ?")) {
            query.setString(1, settings.database());
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    /** Waits until no backend of {@code applicationName} is left (their statistics are then reported). */
    public void awaitDisconnected(String applicationName) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        try (PreparedStatement query = admin.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = ? AND application_name = ?")) {
            query.setString(1, settings.database());
            query.setString(2, applicationName);
            while (System.nanoTime() < deadline) {
                try (ResultSet rows = query.executeQuery()) {
                    rows.next();
                    if (rows.getLong(1) == 0) {
                        // a backend leaves pg_stat_activity just before its last report lands; give it a moment
                        TimeUnit.MILLISECONDS.sleep(150);
                        return;
                    }
                }
                TimeUnit.MILLISECONDS.sleep(20);
            }
        }
        throw new IllegalStateException("backends of '" + applicationName + "' did not disconnect within 10 s");
    }

    @Override
    public void close() throws SQLException {
        try (Statement statement = admin.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + settings.database() + " WITH (FORCE)");
        } finally {
            admin.close();
        }
    }
}
