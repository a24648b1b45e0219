package io.fencepost.sample.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * An embedded primary and a streaming standby made from the same embedded binaries (zonky's, which have no
 * {@code pg_basebackup}): both start from copies of one cleanly stopped data directory, the template, so the standby
 * streams from the primary's first WAL on. The lab's failover step crashes the primary ({@code kill -9} of its
 * postmaster and every child) and promotes the standby.
 */
public final class ReplicatedPair implements AutoCloseable {

    /** The standby's name, as the primary's {@code synchronous_standby_names} and {@code pg_stat_replication} say it. */
    private static final String STANDBY = "lab_standby";

    private static final String REPLICATION_SQL = """
            SELECT state || '/' || sync_state FROM pg_stat_replication WHERE application_name = 'lab_standby'
            """;

    private static final String STOP_RECEIVER_SQL = """
            ALTER SYSTEM SET primary_conninfo = ''
            """;

    private static final String RELOAD_SQL = """
            SELECT pg_reload_conf()
            """;

    private static final String RECEIVER_SQL = """
            SELECT count(*) FROM pg_stat_wal_receiver
            """;

    private static final String SYNC_WAIT_SQL = """
            SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'
            """;

    private static final String PROMOTE_SQL = """
            SELECT pg_promote(true, 60)
            """;

    private final Path directory;

    private final EmbeddedPostgres primary;

    private final EmbeddedPostgres standby;

    private ReplicatedPair(Path directory, EmbeddedPostgres primary, EmbeddedPostgres standby) {
        this.directory = directory;
        this.primary = primary;
        this.standby = standby;
    }

    /**
     * Makes the template in {@code directory}: a fresh cluster set up for streaming replication, {@code prepare}d
     * (say, with a lock table) and cleanly stopped, so that a copy of it is a consistent base for a standby.
     */
    public static Path template(Path directory, Consumer<DataSource> prepare) {
        try {
            EmbeddedPostgres server = replicating(directory).start();
            try {
                prepare.accept(server.getPostgresDatabase());
            } finally {
                server.close();
            }
            Files.deleteIfExists(directory.resolve("postmaster.pid"));
            return directory;
        } catch (IOException e) {
            throw new UncheckedIOException("could not make the replicated pair's template in " + directory, e);
        }
    }

    /**
     * Starts a primary and its standby in {@code directory} from copies of {@code template}, and waits until the
     * standby streams (as the synchronous standby when {@code synchronous}).
     */
    public static ReplicatedPair start(Path template, Path directory, boolean synchronous) {
        try {
            Path primaryData = directory.resolve("primary");
            Path standbyData = directory.resolve("standby");
            DataDirectories.copy(template, primaryData);
            DataDirectories.copy(template, standbyData);
            EmbeddedPostgres primary = replicating(primaryData)
                    .setServerConfig("synchronous_standby_names", synchronous ? STANDBY : "")
                    .start();
            EmbeddedPostgres standby;
            try {
                standby = replicating(standbyData)
                        .setDataDirectoryCustomizer(data -> follow(data.toPath(), primary.getPort()))
                        .start();
            } catch (IOException | RuntimeException e) {
                DataDirectories.crash(primaryData);
                throw e;
            }
            ReplicatedPair pair = new ReplicatedPair(directory, primary, standby);
            pair.awaitReplication(synchronous ? "streaming/sync" : "streaming/async");
            return pair;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start a primary and a standby in " + directory, e);
        }
    }

    private static EmbeddedPostgres.Builder replicating(Path data) {
        return EmbeddedPostgres.builder()
                .setRegisterShutdownHook(false)
                .setCleanDataDirectory(false)
                .setDataDirectory(data)
                .setServerConfig("wal_level", "replica")
                .setServerConfig("max_wal_senders", "4")
                .setServerConfig("wal_keep_size", "64MB")
                .setServerConfig("hot_standby", "on")
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on");
    }

    /** Makes {@code data} a standby streaming from the primary on {@code port}. */
    private static void follow(Path data, int port) {
        try {
            Files.createFile(data.resolve("standby.signal"));
            Files.writeString(
                    data.resolve("postgresql.auto.conf"),
                    "primary_conninfo = 'host=localhost port=" + port + " user=postgres application_name=" + STANDBY
                            + "'\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.APPEND,
                    StandardOpenOption.CREATE);
        } catch (IOException e) {
            throw new UncheckedIOException("could not make " + data + " a standby", e);
        }
    }

    /** The URL clients use: both servers, whichever is primary, as applications behind a failover do. */
    public String clientUrl() {
        return "jdbc:postgresql://localhost:" + primary.getPort() + ",localhost:" + standby.getPort()
                + "/postgres?user=postgres&targetServerType=primary&hostRecheckSeconds=1&connectTimeout=2";
    }

    /**
     * Stops the standby's WAL receiver (an empty {@code primary_conninfo}, reloaded) and waits until it has gone: from
     * now on the standby receives nothing the primary writes.
     */
    public void stallStandby() {
        execute(standby, STOP_RECEIVER_SQL);
        execute(standby, RELOAD_SQL);
        await(() -> count(standby, RECEIVER_SQL) == 0, "the standby's WAL receiver to stop");
    }

    /** Waits until a commit on the primary waits for the synchronous standby. */
    public void awaitCommitWaitingForStandby() {
        await(() -> count(primary, SYNC_WAIT_SQL) > 0, "a commit waiting for the synchronous standby");
    }

    /** {@code kill -9} of the primary's postmaster and all its children: no shutdown, nothing flushed or sent. */
    public void crashPrimary() {
        DataDirectories.crash(directory.resolve("primary"));
    }

    /** Promotes the standby and waits until it takes writes. */
    public void promoteStandby() {
        execute(standby, PROMOTE_SQL);
    }

    private void awaitReplication(String state) {
        await(() -> state.equals(text(primary, REPLICATION_SQL)), "the standby to be " + state);
    }

    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("gave up after 30 s waiting for " + what);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }

    private static void execute(EmbeddedPostgres server, String sql) {
        query(server, sql, rows -> null);
    }

    private static long count(EmbeddedPostgres server, String sql) {
        return query(server, sql, rows -> rows.next() ? rows.getLong(1) : 0L);
    }

    private static String text(EmbeddedPostgres server, String sql) {
        return query(server, sql, rows -> rows.next() ? rows.getString(1) : "none");
    }

    private interface Rows<T> {
        T read(ResultSet rows) throws SQLException;
    }

    private static <T> T query(EmbeddedPostgres server, String sql, Rows<T> read) {
        try (Connection connection = DriverManager.getConnection(server.getJdbcUrl("postgres", "postgres"));
                Statement statement = connection.createStatement()) {
            if (!statement.execute(sql)) {
                return null;
            }
            try (ResultSet rows = statement.getResultSet()) {
                return read.read(rows);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("[" + sql.strip() + "] failed: " + e.getMessage(), e);
        }
    }

    /** Stops whatever still runs (the crashed primary is gone already) and deletes both data directories. */
    @Override
    public void close() {
        for (EmbeddedPostgres server : List.of(standby, primary)) {
            try {
                server.close();
            } catch (IOException | RuntimeException e) {
                // the crashed primary has no server to stop; crash() below makes sure of the rest
            }
        }
        for (Path data : List.of(directory.resolve("primary"), directory.resolve("standby"))) {
            DataDirectories.crash(data);
        }
        DataDirectories.delete(directory);
    }
}
