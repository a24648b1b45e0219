package io.fencepost.lock.jdbc;

import io.fencepost.lock.LockStoreException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A manager's presence row in its own lock table: a lease-like row on a key of its own ({@value #KEY_PREFIX} and a
 * random id) with the manager's holder name, whose end is moved {@link #TIME_TO_LIVE} ahead every {@link #REFRESH}
 * while the manager runs. Releases delete lease rows, so without it a table whose leases were all released, or that
 * never had one, would look idle to the one-lock-table check ({@link OtherLockTables}) of an instance starting on
 * another table. The row is never granted to anyone: no caller asks for its key. Closing the manager deletes it.
 *
 * <p>The refreshes of every manager in the JVM share one daemon thread; each is one short statement.
 */
final class Presence implements AutoCloseable {

    /** The start of every presence key: a key no lock call of the application is expected to use. */
    static final String KEY_PREFIX = "fencepost-presence/";

    /** How long a presence row says "present" after its last refresh. */
    static final Duration TIME_TO_LIVE = Duration.ofMinutes(15);

    /** How often a running manager refreshes its row: a few refreshes may fail before the row lapses. */
    static final Duration REFRESH = Duration.ofMinutes(5);

    /**
     * Marks the manager present until now plus {@code :ttl_ms}: moves the end of its row, or inserts the row (with a
     * fencing token, which the table requires, drawn only then).
     */
    private static final String MARK_SQL = """
            WITH moved AS (
                UPDATE {table} AS l
                   SET expires_at = clock_timestamp() + :ttl_ms * interval '1 millisecond', holder = :holder
                 WHERE l.lock_key = :key
                RETURNING l.expires_at
            ), inserted AS (
                INSERT INTO {table} AS l (lock_key, owner_token, holder, fencing_token, acquired_at, expires_at, contended)
                SELECT :key, :owner::uuid, :holder, nextval('{sequence}'), clock_timestamp(),
                       clock_timestamp() + :ttl_ms * interval '1 millisecond', false
                 WHERE NOT EXISTS (SELECT 1 FROM moved)
                ON CONFLICT (lock_key) DO NOTHING
                RETURNING l.expires_at
            )
            SELECT expires_at FROM moved UNION ALL SELECT expires_at FROM inserted
            """;

    /** Presence rows of managers that stopped long enough ago to count no more: they must not pile up. */
    private static final String FORGET_STOPPED_SQL = """
            DELETE FROM {table}
             WHERE lock_key LIKE 'fencepost-presence/%'
               AND expires_at < clock_timestamp() - :recent_ms * interval '1 millisecond'
            RETURNING 1
            """;

    /** Takes this manager's row back, when its start-up is refused after it was written. */
    private static final String WITHDRAW_SQL = "DELETE FROM {table} WHERE lock_key = :key RETURNING 1";

    private static final System.Logger LOG = System.getLogger(Presence.class.getName());

    private static final ScheduledExecutorService REFRESHES = refreshes();

    private final StatementRunner runner;

    private final String key = KEY_PREFIX + UUID.randomUUID();

    /** Secret like any owner token, though nothing is ever done with it but writing it. */
    private final UUID owner = UUID.randomUUID();

    private final String holder;

    private final NamedStatement mark;

    private final NamedStatement forgetStopped;

    private final NamedStatement withdraw;

    private volatile ScheduledFuture<?> refreshing;

    Presence(StatementRunner runner, TableName table, String holder) {
        this.runner = runner;
        this.holder = holder;
        Map<String, String> slots = Map.of("{table}", table.quotedTable(), "{sequence}", table.quotedSequence());
        this.mark = PostgresStatements.resolve(MARK_SQL, slots);
        this.forgetStopped = PostgresStatements.resolve(FORGET_STOPPED_SQL, slots);
        this.withdraw = PostgresStatements.resolve(WITHDRAW_SQL, slots);
    }

    /**
     * Writes the row now, on the calling thread, and clears the rows of managers that stopped more than
     * {@link OtherLockTables#RECENT} ago.
     *
     * @throws LockStoreException when the database does not take it
     */
    void mark() {
        runner.run(
                "mark this lock manager present",
                List.of(),
                forgetStopped,
                Map.of("recent_ms", OtherLockTables.RECENT.toMillis()),
                rows -> null);
        refresh();
    }

    /** Refreshes the row every {@link #REFRESH} from now on, until {@link #close()}. */
    void keepFresh() {
        refreshing = REFRESHES.scheduleWithFixedDelay(
                this::refreshQuietly, REFRESH.toMillis(), REFRESH.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Deletes the row: for a manager whose start-up is refused after it was written. */
    void withdraw() {
        runner.run("withdraw this lock manager's presence", List.of(), withdraw, Map.of("key", key), rows -> null);
    }

    private void refresh() {
        runner.run(
                "mark this lock manager present",
                List.of(owner.toString()),
                mark,
                Map.of("key", key, "owner", owner, "holder", holder, "ttl_ms", TIME_TO_LIVE.toMillis()),
                rows -> null);
    }

    private void refreshQuietly() {
        try {
            refresh();
        } catch (RuntimeException e) {
            // The row lapses only after TIME_TO_LIVE, and counts for a day after that: the next refresh is soon enough.
            LOG.log(
                    Level.DEBUG,
                    "could not refresh the lock manager's presence row; trying again in " + REFRESH.toMinutes()
                            + " min",
                    e);
        }
    }

    /**
     * Stops refreshing and deletes the row: a manager that stopped cleanly locks in its table no more. (One that
     * crashed leaves its row, which lapses and counts as recent use for a day, like a lease that was never released.)
     */
    @Override
    public void close() {
        ScheduledFuture<?> scheduled = refreshing;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
        try {
            withdraw();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "could not delete the lock manager's presence row at close; it lapses on its own", e);
        }
    }

    private static ScheduledExecutorService refreshes() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "fencepost-presence");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }
}
