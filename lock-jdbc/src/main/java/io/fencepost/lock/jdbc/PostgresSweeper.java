package io.fencepost.lock.jdbc;

import io.fencepost.lock.spi.LockListener;
import io.fencepost.lock.spi.StoreSweeper;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Removes, in the background and in bounded batches, the rows of a lock table that nothing needs any more: leases that
 * ended without a release (a crashed holder, a minimum hold that ran out), registrations of waiters that lapsed, and,
 * when configured, fencing guard records that no write has touched for a long time. Each batch is one statement that
 * locks what it removes with {@code SKIP LOCKED}, so it never waits for a grant and no grant waits for long on it.
 */
final class PostgresSweeper implements StoreSweeper {

    /** How often a manager sweeps when nothing else is configured. */
    static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);

    /** How many rows of one kind a sweep statement removes at most when nothing else is configured. */
    static final int DEFAULT_BATCH_SIZE = 1000;

    /** The largest batch: one statement must stay well within the statement timeout. */
    static final int MAX_BATCH_SIZE = 100_000;

    /**
     * Ended leases. A row is removed only when its lease ended by the database clock (which also covers a minimum hold:
     * a release keeps the row's expiry at acquisition plus the hold), no waiting exclusive request holds new shared
     * leases of the key back ({@code exclusive_waits_until}, which outlives the leases and which a deleted row would
     * forget), and no live registration waits for the key (its own attempt takes the row over when it runs). The rows
     * are locked with {@code SKIP LOCKED}: a row that an acquire is taking over is skipped; one that it wants after we
     * locked it is inserted afresh once we commit (the insert's conflict is gone). A row that a grant changed after
     * our snapshot is locked in its latest version and judged again on it, by the CTE and by the delete. The draw lock
     * is not needed: a delete grants nothing and draws no token, and the row it removes was free for anyone to take
     * over with a token drawn under that lock.
     */
    static final String SWEEP_LEASES_SQL = """
            WITH ended AS MATERIALIZED (
                SELECT l.lock_key
                  FROM {table} AS l
                 WHERE l.expires_at <= clock_timestamp()
                   AND (l.exclusive_waits_until IS NULL OR l.exclusive_waits_until <= clock_timestamp())
                   AND NOT EXISTS (SELECT 1 FROM {queue} AS q
                                    WHERE q.lock_key = l.lock_key AND q.expires_at > clock_timestamp())
                 LIMIT :batch
                   FOR UPDATE OF l SKIP LOCKED
            ), swept AS (
                DELETE FROM {table} AS l
                 USING ended AS e
                 WHERE l.lock_key = e.lock_key
                   AND l.expires_at <= clock_timestamp()
                   AND (l.exclusive_waits_until IS NULL OR l.exclusive_waits_until <= clock_timestamp())
                RETURNING 1
            )
            SELECT count(*) AS removed FROM swept
            """;

    /**
     * Lapsed registrations of waiters: those the statements already ignore (a release serves only live ones) and clear
     * when the same key is tried again, which a key used once never is. A registration refreshed after our snapshot is
     * judged again in its latest version; one being refreshed is skipped.
     */
    static final String SWEEP_REGISTRATIONS_SQL = """
            WITH lapsed AS MATERIALIZED (
                SELECT q.lock_key, q.ticket
                  FROM {queue} AS q
                 WHERE q.expires_at <= clock_timestamp()
                 LIMIT :batch
                   FOR UPDATE OF q SKIP LOCKED
            ), swept AS (
                DELETE FROM {queue} AS q
                 USING lapsed AS s
                 WHERE q.lock_key = s.lock_key AND q.ticket = s.ticket AND q.expires_at <= clock_timestamp()
                RETURNING 1
            )
            SELECT count(*) AS removed FROM swept
            """;

    /**
     * Records of the fencing guard ({@link JdbcFencingGuard}) that no accepted write has touched for {@code :age_ms}.
     * Such a record is the only thing that refuses a stale token at its resource: once it is gone, the next check
     * accepts any token. A check in progress holds the record's row lock and is skipped.
     */
    static final String SWEEP_FENCES_SQL = """
            WITH stale AS MATERIALIZED (
                SELECT f.resource
                  FROM {fence} AS f
                 WHERE f.accepted_at <= clock_timestamp() - :age_ms * interval '1 millisecond'
                 LIMIT :batch
                   FOR UPDATE OF f SKIP LOCKED
            ), swept AS (
                DELETE FROM {fence} AS f
                 USING stale AS s
                 WHERE f.resource = s.resource
                   AND f.accepted_at <= clock_timestamp() - :age_ms * interval '1 millisecond'
                RETURNING 1
            )
            SELECT count(*) AS removed FROM swept
            """;

    private final StatementRunner runner;

    private final Duration interval;

    private final int batchSize;

    /** Null when fencing guard records are kept. */
    private final Duration fenceRowAge;

    private final NamedStatement sweepLeases;

    private final NamedStatement sweepRegistrations;

    private final NamedStatement sweepFences;

    /**
     * A sweeper of {@code table}'s rows.
     *
     * @param fenceRowAge how long a fencing guard record must have been untouched to be removed; null to keep them
     * @throws IllegalArgumentException for a setting out of range, naming it
     */
    PostgresSweeper(
            DataSource dataSource,
            TableName table,
            Duration statementTimeout,
            Duration interval,
            int batchSize,
            Duration fenceRowAge) {
        Objects.requireNonNull(table, "table");
        requireValid(interval, batchSize, fenceRowAge);
        this.runner = new StatementRunner(dataSource, statementTimeout);
        this.interval = interval;
        this.batchSize = batchSize;
        this.fenceRowAge = fenceRowAge;
        Map<String, String> slots = new LinkedHashMap<>();
        slots.put("{table}", table.quotedTable());
        slots.put("{queue}", table.quotedQueueTable());
        slots.put("{fence}", table.quotedFenceTable());
        this.sweepLeases = PostgresStatements.resolve(SWEEP_LEASES_SQL, slots);
        this.sweepRegistrations = PostgresStatements.resolve(SWEEP_REGISTRATIONS_SQL, slots);
        this.sweepFences = PostgresStatements.resolve(SWEEP_FENCES_SQL, slots);
    }

    /** Checks the settings as the builder takes them, so that a mistake fails before anything touches the database. */
    static void requireValid(Duration interval, int batchSize, Duration fenceRowAge) {
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("sweep interval must be positive, was " + interval
                    + " (to stop sweeping, turn it off: sweep(false), fencepost.jdbc.sweep.enabled=false)");
        }
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException(
                    "sweep batch size must be between 1 and " + MAX_BATCH_SIZE + ", was " + batchSize);
        }
        if (fenceRowAge != null && (fenceRowAge.isNegative() || fenceRowAge.isZero())) {
            throw new IllegalArgumentException("fence row age must be positive, was " + fenceRowAge
                    + " (leave it unset to keep the fencing guard's records)");
        }
    }

    @Override
    public Duration sweepInterval() {
        return interval;
    }

    @Override
    public boolean sweep(LockListener listener) {
        boolean full = sweep(LEASES, sweepLeases, Map.of("batch", batchSize), listener);
        full |= sweep(REGISTRATIONS, sweepRegistrations, Map.of("batch", batchSize), listener);
        if (fenceRowAge != null) {
            long ageMillis = StatementRunner.ceilMillis(fenceRowAge);
            full |= sweep(FENCES, sweepFences, Map.of("batch", batchSize, "age_ms", ageMillis), listener);
        }
        return full;
    }

    /** One batch of one kind; whether it came back full. */
    private boolean sweep(
            String kind, NamedStatement statement, Map<String, Object> parameters, LockListener listener) {
        int removed = runner.run("sweep ended " + kind + " rows", List.of(), statement, parameters, rows -> {
            rows.next();
            return rows.getInt("removed");
        });
        if (removed > 0) {
            listener.swept(kind, removed);
        }
        return removed >= batchSize;
    }

    @Override
    public String toString() {
        return "PostgresSweeper[interval=" + interval + ", batch=" + batchSize + ", fenceRowAge=" + fenceRowAge + "]";
    }
}
