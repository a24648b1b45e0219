package io.fencepost.lock.jdbc;

import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.internal.Durations;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * The health of fencepost's lock store on PostgreSQL, in two cheap statements on one connection, each bounded by the
 * statement timeout. {@code UP} when the database answers, is a primary (not a read-only standby) and has the lock
 * table and its fencing sequence; {@code DOWN} otherwise.
 *
 * <p>It answers within {@link #ANSWER_WITHIN}, never waiting on a database that is gone: the probe runs on a thread of
 * its own (one at a time, however many ask), and {@link #check()} answers {@code DOWN} at once when the last call to
 * the database, a probe or (for a health made {@link #withLockCallsOf with the manager}) a lock statement, could not
 * reach it, and {@code DOWN} when the probe has not answered within {@link #ANSWER_WITHIN}. The probe goes on in the
 * background, so that the next check after the database is back answers {@code UP}. Otherwise the details report:
 *
 * <ul>
 *   <li>{@code clockOffsetMillis}: the database clock minus the JVM clock, measured against the midpoint of the
 *       round trip ({@code roundTripMillis} bounds the error). Leases never depend on it, since the database clock
 *       decides expiry, but {@code Lease.expiresAt()} is a database time that must not be compared with the JVM's;
 *   <li>{@code synchronousCommit}: the setting as the lock role sees it. {@code off} is a note, not a warning: the
 *       granting and renewing statements set {@code synchronous_commit = on} for their own transaction, so grants
 *       and renewals stay durable; the role's own writes (fenced writes included) are what may be lost in a crash;
 *   <li>{@code standbys}: standbys streaming from this server, and how many are asynchronous. A failover to an
 *       asynchronous standby can lose the latest grants and re-issue fencing tokens: a warning. Without the
 *       {@code pg_read_all_stats} role PostgreSQL hides each standby's {@code sync_state}; it is then deduced from an
 *       empty {@code synchronous_standby_names}, or reported unknown;
 *   <li>{@code wakeUps} (for a health made {@link #withWakeUpsOf with the manager}): how waiters are woken now:
 *       {@code push} (notifications arrive), {@code polling} (the notification listener reconnects, or its
 *       notifications do not arrive, as behind a connection pooler in transaction mode: a warning), or
 *       {@code not started} (nobody waited yet);
 *   <li>{@code otherLockTables} (for a health made {@link #withOtherLockTablesOf with the manager}, when any): the
 *       other Fencepost lock tables in the database that the manager's application uses now or used recently, as
 *       its start-up check sees them. Locks taken in different tables do not exclude each other: a warning;
 *   <li>{@code warnings} (when any): {@code fsync = off}, asynchronous standbys, a large clock offset, notifications
 *       that do not arrive, other lock tables in use. Warnings leave the status {@code UP}: they describe the set-up,
 *       which no restart of the application changes.
 * </ul>
 */
public final class LockStoreHealth {

    /** How long a check waits for the probe's answer before it answers {@code DOWN}: well within 1 s. */
    public static final Duration ANSWER_WITHIN = Duration.ofMillis(800);

    /** The clock offset from which a warning is reported. */
    static final Duration CLOCK_OFFSET_WARNING = Duration.ofSeconds(1);

    /** One round trip: the database clock, the durability settings, whether the database is a primary, the schema. */
    private static final NamedStatement STATUS = NamedStatement.parse("""
            SELECT clock_timestamp() AS database_time,
                   current_setting('synchronous_commit') AS synchronous_commit,
                   current_setting('fsync') AS fsync,
                   current_setting('synchronous_standby_names') AS synchronous_standby_names,
                   pg_is_in_recovery() AS in_recovery,
                   to_regclass(quote_ident(:table)) IS NOT NULL AS lock_table_present,
                   to_regclass(quote_ident(:sequence)) IS NOT NULL AS fence_sequence_present
            """);

    /**
     * The standbys streaming from this server. Roles without pg_read_all_stats see a row per standby but a NULL
     * sync_state; 'potential' standbys are asynchronous until a synchronous one fails.
     */
    private static final NamedStatement STANDBYS = NamedStatement.parse("""
            SELECT count(*) AS standbys,
                   count(*) FILTER (WHERE sync_state IN ('async', 'potential')) AS async_standbys,
                   count(*) FILTER (WHERE sync_state IS NULL) AS undisclosed
              FROM pg_stat_replication
            """);

    /** SQLState of a privilege error: the role may not read pg_stat_replication. */
    private static final String INSUFFICIENT_PRIVILEGE = "42501";

    private final TableName tableName;

    private final StatementRunner runner;

    private final Clock clock;

    /** The store whose wake-ups are reported, or null. */
    private final PostgresLeaseStore store;

    /** How the other lock tables in use are found, or null when they are not reported. */
    private final OtherLockTables otherLockTables;

    /** The probe running now, or the last one. */
    private final AtomicReference<CompletableFuture<Report>> running =
            new AtomicReference<>(CompletableFuture.completedFuture(null));

    /**
     * The health of the lock table {@code tableName} on {@code dataSource}.
     *
     * @param timeout bound on the probe: on the wait for a connection and the statements after it
     */
    public LockStoreHealth(DataSource dataSource, String tableName, Duration timeout) {
        this(dataSource, tableName, timeout, Clock.systemUTC());
    }

    LockStoreHealth(DataSource dataSource, String tableName, Duration timeout, Clock clock) {
        this(TableName.of(tableName), new StatementRunner(dataSource, timeout), clock, null, null);
    }

    private LockStoreHealth(
            TableName tableName,
            StatementRunner runner,
            Clock clock,
            PostgresLeaseStore store,
            OtherLockTables otherLockTables) {
        this.tableName = tableName;
        this.runner = runner;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.store = store;
        this.otherLockTables = otherLockTables;
    }

    /**
     * This health, also answering from what the lock statements of {@code manager} last saw: {@code DOWN} at once
     * while they cannot reach the database, whose probes tell the manager's calls in turn.
     */
    public LockStoreHealth withLockCallsOf(PostgresLockManager manager) {
        return new LockStoreHealth(
                tableName, runner.reportingTo(manager.leaseStore().reachability()), clock, store, otherLockTables);
    }

    /** This health, also reporting how the waiters of {@code manager} are woken ({@code wakeUps}). */
    public LockStoreHealth withWakeUpsOf(PostgresLockManager manager) {
        return new LockStoreHealth(tableName, runner, clock, manager.leaseStore(), otherLockTables);
    }

    /**
     * This health, also reporting the other lock tables that the application of {@code manager} uses
     * ({@code otherLockTables}), as its start-up check looks for them.
     */
    public LockStoreHealth withOtherLockTablesOf(PostgresLockManager manager) {
        return new LockStoreHealth(tableName, runner, clock, store, manager.otherLockTables());
    }

    /**
     * What the store looks like now, within {@link #ANSWER_WITHIN}.
     *
     * @return never null: a store that cannot be reached, or does not answer in time, is reported {@code DOWN} with
     *     the error as a detail
     */
    public Report check() {
        CompletableFuture<Report> answer = probe();
        Optional<Reachability.Outage> outage = runner.reachability().outage();
        if (outage.isPresent() && !answer.isDone()) {
            return down(
                    "the lock store cannot be reached: " + outage.get().reason(),
                    Map.of("unreachableSince", outage.get().since().toString()));
        }
        try {
            return answer.get(ANSWER_WITHIN.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return down(
                    "the database did not answer the health probe within " + Durations.readable(ANSWER_WITHIN)
                            + " (the probe goes on, bounded by the statement timeout of "
                            + Durations.readable(runner.statementTimeout())
                            + "): the database is unreachable, or the pool has no free connection",
                    Map.of());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return down("interrupted while waiting for the health probe", Map.of());
        } catch (ExecutionException e) {
            return down("the health probe failed: " + e.getCause(), Map.of());
        }
    }

    /** The probe running now, or a new one when none runs. */
    private CompletableFuture<Report> probe() {
        while (true) {
            CompletableFuture<Report> last = running.get();
            if (!last.isDone()) {
                return last;
            }
            CompletableFuture<Report> next = new CompletableFuture<>();
            if (running.compareAndSet(last, next)) {
                try {
                    DatabaseThreads.executor().execute(() -> next.complete(probeNow()));
                } catch (RuntimeException e) {
                    next.completeExceptionally(e);
                }
                return next;
            }
        }
    }

    private Report down(String error, Map<String, Object> more) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("table", tableName.table());
        details.put("error", error);
        details.putAll(more);
        return new Report(false, details);
    }

    /** Probes the database, on the calling thread, within the statement timeout. */
    private Report probeNow() {
        Probe probe;
        List<OtherLockTables.InUse> others;
        try {
            Seen seen = runner.withConnection(
                    "check the lock store's health",
                    List.of(),
                    connection -> new Seen(probe(connection), otherLockTables(connection)));
            probe = seen.probe();
            others = seen.otherLockTables();
        } catch (LockStoreException e) {
            return down(e.getMessage(), Map.of());
        } catch (RuntimeException e) {
            return down("the health probe failed: " + e, Map.of());
        }
        Report report = withOtherLockTables(assess(probe, tableName.table()), others);
        return store == null ? report : withWakeUps(report, store.wakeUps());
    }

    private List<OtherLockTables.InUse> otherLockTables(Connection connection) throws SQLException {
        if (otherLockTables == null) {
            return List.of();
        }
        return otherLockTables.find(connection, (int) Math.max(1, (runner.timeoutMillis() + 999L) / 1000));
    }

    /** {@code report} with the other lock tables in use, and a warning, when there are any. */
    static Report withOtherLockTables(Report report, List<OtherLockTables.InUse> others) {
        if (others.isEmpty()) {
            return report;
        }
        Map<String, Object> details = new LinkedHashMap<>(report.details());
        details.put(
                "otherLockTables",
                others.stream().map(OtherLockTables.InUse::describe).toList());
        List<String> warnings = new ArrayList<>();
        if (details.get("warnings") instanceof List<?> earlier) {
            earlier.forEach(warning -> warnings.add(String.valueOf(warning)));
        }
        warnings.add("other Fencepost lock tables of this application are in use in the database ("
                + String.join(
                        ", ", others.stream().map(OtherLockTables.InUse::name).toList())
                + "): locks taken in different tables do not exclude each other; unless that is intended"
                + " (fencepost.jdbc.allow-other-lock-tables=true), give every instance the same"
                + " fencepost.jdbc.table-name");
        details.put("warnings", warnings);
        return new Report(report.up(), details);
    }

    /** {@code report} with how waiters are woken, and a warning when notifications do not arrive. */
    static Report withWakeUps(Report report, NotificationListener.WakeUps wakeUps) {
        Map<String, Object> details = new LinkedHashMap<>(report.details());
        details.put(
                "wakeUps",
                switch (wakeUps) {
                    case NOT_STARTED -> "not started";
                    case PUSH -> "push";
                    case POLLING_RECONNECTING, POLLING_UNDELIVERED -> "polling";
                });
        if (wakeUps == NotificationListener.WakeUps.POLLING_UNDELIVERED) {
            List<String> warnings = new ArrayList<>();
            if (details.get("warnings") instanceof List<?> earlier) {
                earlier.forEach(warning -> warnings.add(String.valueOf(warning)));
            }
            warnings.add("notifications do not reach the lock manager's LISTEN connection, though it answers"
                    + " queries (a connection pooler in transaction mode, such as PgBouncer with pool_mode ="
                    + " transaction?): waiters poll with short backoff instead of being woken; connect the lock"
                    + " manager directly or through session pooling for push wake-ups");
            details.put("warnings", warnings);
        }
        return new Report(report.up(), details);
    }

    private Probe probe(Connection connection) throws SQLException {
        Instant sent = clock.instant();
        long start = System.nanoTime();
        Probe status = StatementRunner.query(
                connection, STATUS, c -> Map.of("table", tableName.table(), "sequence", tableName.sequence()), row -> {
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
                });
        return status.withStandbys(standbys(connection));
    }

    private static Standbys standbys(Connection connection) throws SQLException {
        try {
            return StatementRunner.query(connection, STANDBYS, c -> Map.of(), row -> {
                row.next();
                return new Standbys(row.getLong("standbys"), row.getLong("async_standbys"), row.getLong("undisclosed"));
            });
        } catch (SQLException e) {
            if (INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
                return Standbys.UNREADABLE;
            }
            throw e;
        }
    }

    /** Turns what the probe saw into a status and details. */
    static Report assess(Probe probe, String table) {
        Map<String, Object> details = new LinkedHashMap<>();
        List<String> warnings = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        details.put("table", table);
        details.put("clockOffsetMillis", probe.clockOffset().toMillis());
        details.put("roundTripMillis", probe.roundTrip().toMillis());
        details.put("synchronousCommit", probe.synchronousCommit());
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
            details.put("fsync", probe.fsync());
            warnings.add("fsync is off: a crash of the database server can lose granted leases and re-issue fencing"
                    + " tokens");
        }
        details.put("standbys", standbys(probe, warnings));
        if (!warnings.isEmpty()) {
            details.put("warnings", warnings);
        }
        if (!notes.isEmpty()) {
            details.put("notes", notes);
        }
        if (probe.inRecovery()) {
            details.put("error", "the database is a read-only standby (in recovery): locks cannot be granted");
            return new Report(false, details);
        }
        if (!probe.lockTablePresent() || !probe.fenceSequencePresent()) {
            String missing = !probe.lockTablePresent()
                    ? "the lock table '" + table + "'"
                    : "the fencing sequence '" + TableName.of(table).sequence() + "'";
            details.put(
                    "error",
                    missing + " is not on the connection's search_path: create it with"
                            + " fencepost.jdbc.initialize-schema=create or your own migration");
            return new Report(false, details);
        }
        return new Report(true, details);
    }

    private static Map<String, Object> standbys(Probe probe, List<String> warnings) {
        Standbys standbys = probe.standbys();
        Map<String, Object> detail = new LinkedHashMap<>();
        if (standbys == Standbys.UNREADABLE) {
            detail.put("connected", "unknown");
            detail.put("asynchronous", "unknown");
            detail.put("note", "this role may not read pg_stat_replication");
            return detail;
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
        return detail;
    }

    /**
     * The store's health.
     *
     * @param up whether locks can be granted
     * @param details what was seen, for an endpoint: never an owner token
     */
    public record Report(boolean up, Map<String, Object> details) {
        public Report {
            details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
        }
    }

    /** What one health check saw on its connection. */
    private record Seen(Probe probe, List<OtherLockTables.InUse> otherLockTables) {}

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
