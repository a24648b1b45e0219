package io.fencepost.lock.spring.actuate.health;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of Fencepost's lock store on PostgreSQL, in at most two cheap statements bounded by a timeout.
 *
 * <p>{@code UP} when the database answers, is a primary (not a read-only standby) and has the lock table and its
 * fencing sequence; {@code DOWN} otherwise. Either way the details report:
 *
 * <ul>
 *   <li>{@code clockOffsetMillis}: the database clock minus the JVM clock, measured against the midpoint of the
 *       round trip ({@code roundTripMillis} bounds the error). Leases never depend on it, since the database clock
 *       decides expiry, but {@code Lease.expiresAt()} is a database time that must not be compared with the JVM's;
 *   <li>{@code synchronousCommit}: the setting as the lock role sees it. {@code off} is a note, not a warning: the
 *       acquire and renew statements set {@code synchronous_commit = on} for their own transaction, so grants and
 *       renewals stay durable; the role's own writes (including fenced writes) are what may be lost in a crash;
 *   <li>{@code standbys}: standbys streaming from this server, and how many are asynchronous. A failover to an
 *       asynchronous standby can lose the latest grants and re-issue fencing tokens: a warning. Without the
 *       {@code pg_read_all_stats} role PostgreSQL hides each standby's {@code sync_state}; the indicator then
 *       deduces it from an empty {@code synchronous_standby_names}, or reports it unknown;
 *   <li>{@code warnings} (when any): {@code fsync = off}, asynchronous standbys, a large clock offset.
 * </ul>
 *
 * Warnings leave the status {@code UP}: they describe the set-up, which no restart of the application changes.
 */
public class LockStoreHealthIndicator extends AbstractHealthIndicator {

    /** The clock offset from which a warning is reported. */
    static final Duration CLOCK_OFFSET_WARNING = Duration.ofSeconds(1);

    /** One round trip: the database clock, the durability settings, whether the database is a primary, the schema. */
    private static final String STATUS_SQL = """
            SELECT clock_timestamp() AS database_time,
                   current_setting('synchronous_commit') AS synchronous_commit,
                   current_setting('fsync') AS fsync,
                   current_setting('synchronous_standby_names') AS synchronous_standby_names,
                   pg_is_in_recovery() AS in_recovery,
                   to_regclass(quote_ident(?)) IS NOT NULL AS lock_table_present,
                   to_regclass(quote_ident(?)) IS NOT NULL AS fence_sequence_present
            """;

    /**
     * The standbys streaming from this server. Roles without pg_read_all_stats see a row per standby but a NULL
     * sync_state; 'potential' standbys are asynchronous until a synchronous one fails.
     */
    private static final String STANDBYS_SQL = """
            SELECT count(*) AS standbys,
                   count(*) FILTER (WHERE sync_state IN ('async', 'potential')) AS async_standbys,
                   count(*) FILTER (WHERE sync_state IS NULL) AS undisclosed
              FROM pg_stat_replication
            """;

    /** SQLState of a privilege error: the role may not read pg_stat_replication. */
    private static final String INSUFFICIENT_PRIVILEGE = "42501";

    private static final Executor DIRECT = Runnable::run;

    private final DataSource dataSource;

    private final String tableName;

    private final Duration timeout;

    private final Clock clock;

    /**
     * An indicator for the lock table {@code tableName} on {@code dataSource}.
     *
     * @param timeout bound on each statement (the pool's connection timeout bounds getting a connection)
     */
    public LockStoreHealthIndicator(DataSource dataSource, String tableName, Duration timeout) {
        this(dataSource, tableName, timeout, Clock.systemUTC());
    }

    LockStoreHealthIndicator(DataSource dataSource, String tableName, Duration timeout, Clock clock) {
        super("Lock store health check failed");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.tableName = Objects.requireNonNull(tableName, "tableName");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        builder.withDetail("table", tableName);
        Probe probe;
        try {
            probe = probe();
        } catch (SQLException e) {
            builder.down(e);
            return;
        }
        assess(probe, tableName, builder);
    }

    private Probe probe() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
            int previousNetworkTimeout = connection.getNetworkTimeout();
            connection.setNetworkTimeout(DIRECT, millis);
            try {
                Probe probe = status(connection, millis);
                probe = probe.withStandbys(standbys(connection, millis));
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                }
                return probe;
            } finally {
                connection.setNetworkTimeout(DIRECT, previousNetworkTimeout);
            }
        }
    }

    private Probe status(Connection connection, int timeoutMillis) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(STATUS_SQL)) {
            statement.setQueryTimeout(seconds(timeoutMillis));
            statement.setString(1, tableName);
            statement.setString(2, tableName + "_fence_seq");
            Instant sent = clock.instant();
            long start = System.nanoTime();
            try (ResultSet row = statement.executeQuery()) {
                long roundTrip = System.nanoTime() - start;
                row.next();
                Instant midpoint = sent.plusNanos(roundTrip / 2);
                Instant databaseTime =
                        row.getObject("database_time", OffsetDateTime.class).toInstant();
                return new Probe(
                        Duration.between(midpoint, databaseTime),
                        Duration.ofNanos(roundTrip),
                        row.getString("synchronous_commit"),
                        row.getString("fsync"),
                        row.getString("synchronous_standby_names"),
                        row.getBoolean("in_recovery"),
                        row.getBoolean("lock_table_present"),
                        row.getBoolean("fence_sequence_present"),
                        null);
            }
        }
    }

    private static Standbys standbys(Connection connection, int timeoutMillis) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(STANDBYS_SQL)) {
            statement.setQueryTimeout(seconds(timeoutMillis));
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return new Standbys(row.getLong("standbys"), row.getLong("async_standbys"), row.getLong("undisclosed"));
            }
        } catch (SQLException e) {
            if (INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                }
                return Standbys.UNREADABLE;
            }
            throw e;
        }
    }

    private static int seconds(int millis) {
        return Math.max(1, (millis + 999) / 1000);
    }

    /** Turns what the probe saw into a status and details. */
    static void assess(Probe probe, String tableName, Health.Builder builder) {
        List<String> warnings = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        builder.withDetail("clockOffsetMillis", probe.clockOffset().toMillis());
        builder.withDetail("roundTripMillis", probe.roundTrip().toMillis());
        builder.withDetail("synchronousCommit", probe.synchronousCommit());
        if (probe.clockOffset().abs().compareTo(CLOCK_OFFSET_WARNING) > 0) {
            warnings.add("the database clock is " + probe.clockOffset().toMillis() + " ms off the JVM clock: leases"
                    + " are unaffected (the database clock decides expiry), but Lease.expiresAt() and the endpoint's"
                    + " times are database times; never compare them with the JVM clock");
        }
        if ("off".equalsIgnoreCase(probe.synchronousCommit())) {
            notes.add("synchronous_commit is off for this role: Fencepost commits grants and renewals with"
                    + " synchronous_commit=on regardless, so they survive a crash; this role's other writes,"
                    + " fenced writes included, may be lost in one");
        }
        if ("off".equalsIgnoreCase(probe.fsync())) {
            builder.withDetail("fsync", probe.fsync());
            warnings.add("fsync is off: a crash of the database server can lose granted leases and re-issue fencing"
                    + " tokens");
        }
        standbys(probe, builder, warnings);
        if (!warnings.isEmpty()) {
            builder.withDetail("warnings", warnings);
        }
        if (!notes.isEmpty()) {
            builder.withDetail("notes", notes);
        }
        if (probe.inRecovery()) {
            builder.down()
                    .withDetail("error", "the database is a read-only standby (in recovery): locks cannot be granted");
        } else if (!probe.lockTablePresent() || !probe.fenceSequencePresent()) {
            String missing = !probe.lockTablePresent()
                    ? "the lock table '" + tableName + "'"
                    : "the fencing sequence '" + tableName + "_fence_seq'";
            builder.down()
                    .withDetail(
                            "error",
                            missing + " is not on the connection's search_path: create it with"
                                    + " fencepost.jdbc.initialize-schema=create or your own migration");
        } else {
            builder.up();
        }
    }

    private static void standbys(Probe probe, Health.Builder builder, List<String> warnings) {
        Standbys standbys = probe.standbys();
        Map<String, Object> detail = new LinkedHashMap<>();
        if (standbys == Standbys.UNREADABLE) {
            detail.put("connected", "unknown");
            detail.put("asynchronous", "unknown");
            detail.put("note", "this role may not read pg_stat_replication");
            builder.withDetail("standbys", detail);
            return;
        }
        detail.put("connected", standbys.connected());
        long asynchronous = standbys.asynchronous();
        boolean known = standbys.undisclosed() == 0;
        if (!known && probe.synchronousStandbyNames().isBlank()) {
            // No synchronous standby is configured, so every standby is asynchronous, whatever we may not see.
            asynchronous = standbys.connected();
            known = true;
        }
        if (known) {
            detail.put("asynchronous", asynchronous);
            if (asynchronous > 0) {
                warnings.add(
                        asynchronous + " asynchronous " + (asynchronous == 1 ? "standby streams" : "standbys stream")
                                + " from this database: a failover to one can lose the latest grants and re-issue fencing"
                                + " tokens; use synchronous replication (synchronous_standby_names) for the lock table");
            }
        } else {
            detail.put("asynchronous", "unknown");
            detail.put("note", "this role lacks pg_read_all_stats, so PostgreSQL hides which standbys are synchronous");
        }
        builder.withDetail("standbys", detail);
    }

    /** What the health statements saw. */
    record Probe(
            Duration clockOffset,
            Duration roundTrip,
            String synchronousCommit,
            String fsync,
            String synchronousStandbyNames,
            boolean inRecovery,
            boolean lockTablePresent,
            boolean fenceSequencePresent,
            Standbys standbys) {

        Probe withStandbys(Standbys standbys) {
            return new Probe(
                    clockOffset,
                    roundTrip,
                    synchronousCommit,
                    fsync,
                    synchronousStandbyNames,
                    inRecovery,
                    lockTablePresent,
                    fenceSequencePresent,
                    standbys);
        }
    }

    /** Standbys streaming from the database: all of them, the asynchronous ones, those whose state is hidden. */
    record Standbys(long connected, long asynchronous, long undisclosed) {

        /** The role may not read pg_stat_replication at all. */
        static final Standbys UNREADABLE = new Standbys(-1, -1, -1);
    }
}
