package io.fencepost.lock.jdbc;

import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.core.EngineBuilder;
import io.fencepost.lock.core.EngineSettings;
import io.fencepost.lock.spi.StoreSweeper;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * A {@link LockManager} on PostgreSQL without Spring: the lock engine over a {@link PostgresLeaseStore}, with the
 * schema created or checked when it is built.
 */
public final class PostgresLockManager extends DefaultLockManager {

    private static final System.Logger LOG = System.getLogger(PostgresLockManager.class.getName());

    /** The lock table when none is configured. */
    public static final String DEFAULT_TABLE_NAME = TableName.DEFAULT;

    /** The longest lock table name: the names derived from it must fit PostgreSQL's 63 characters. */
    public static final int MAX_TABLE_NAME_LENGTH = TableName.MAX_LENGTH;

    /**
     * Checks a lock table name as the builder does, for configuration that wants to report it early.
     *
     * @throws IllegalArgumentException naming the rule, when {@code tableName} is not a valid lock table name
     */
    public static void requireValidTableName(String tableName) {
        TableName.of(tableName);
    }

    /** How long one lock statement may take when nothing else is configured. */
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

    /** What happens to the schema when nothing else is configured: fencepost creates it. */
    public static final SchemaMode DEFAULT_SCHEMA_MODE = SchemaMode.CREATE;

    /** How often the manager removes ended leases and lapsed registrations when nothing else is configured. */
    public static final Duration DEFAULT_SWEEP_INTERVAL = PostgresSweeper.DEFAULT_INTERVAL;

    /** How many rows of one kind one sweep statement removes at most when nothing else is configured. */
    public static final int DEFAULT_SWEEP_BATCH_SIZE = PostgresSweeper.DEFAULT_BATCH_SIZE;

    /** The largest sweep batch: one statement must stay well within the statement timeout. */
    public static final int MAX_SWEEP_BATCH_SIZE = PostgresSweeper.MAX_BATCH_SIZE;

    private final PostgresLeaseStore store;

    private final OtherLockTables otherLockTables;

    private final Presence presence;

    private PostgresLockManager(
            PostgresLeaseStore store,
            OtherLockTables otherLockTables,
            Presence presence,
            EngineSettings settings,
            StoreSweeper sweeper) {
        super(store, settings, sweeper);
        this.store = store;
        this.otherLockTables = otherLockTables;
        this.presence = presence;
    }

    /**
     * A lock manager with the defaults: table {@value #DEFAULT_TABLE_NAME}, created if missing.
     *
     * @throws UnsafeLockStoreException when the database cannot keep locks safe
     * @throws LockSchemaException when the schema cannot be created
     */
    public static PostgresLockManager create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /**
     * A builder starting from the defaults.
     *
     * @param dataSource the application's plain connection pool: every lock statement takes its own connection and
     *     commits on its own, also while the calling thread has a transaction open (a transaction-aware proxy that
     *     hands out the caller's connection would defeat that)
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The lock table this manager uses. */
    public String tableName() {
        return store.tableName();
    }

    PostgresLeaseStore leaseStore() {
        return store;
    }

    /** How this manager looks for other lock tables of its application. */
    OtherLockTables otherLockTables() {
        return otherLockTables;
    }

    /** Stops renewal, sweeping, listening and the presence row's refreshes; leases still held then run out on their own. */
    @Override
    public void close() {
        presence.close();
        super.close();
        store.close();
    }

    /**
     * Builds a {@link PostgresLockManager}: the store's settings here, the engine's from {@link EngineBuilder}.
     * {@link #build()} validates every setting before touching the database.
     */
    public static final class Builder extends EngineBuilder<Builder> {

        private final DataSource dataSource;

        private String tableName = DEFAULT_TABLE_NAME;

        private SchemaMode schemaMode = DEFAULT_SCHEMA_MODE;

        private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;

        private String applicationName;

        private boolean allowOtherLockTables;

        private int queueSessions = PostgresLeaseStore.DEFAULT_QUEUE_SESSIONS;

        private boolean sweep = true;

        private Duration sweepInterval = DEFAULT_SWEEP_INTERVAL;

        private int sweepBatchSize = DEFAULT_SWEEP_BATCH_SIZE;

        private Duration sweepFenceRowAge;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * The lock table; its sequence is {@code <table>_fence_seq}. Lower-case letters, digits and {@code _}, at
         * most 48 characters; default {@value PostgresLockManager#DEFAULT_TABLE_NAME}.
         */
        public Builder tableName(String tableName) {
            this.tableName = tableName;
            return this;
        }

        /** Whether to create, validate or leave alone the schema; default {@link SchemaMode#CREATE}. */
        public Builder schemaMode(SchemaMode schemaMode) {
            this.schemaMode = schemaMode;
            return this;
        }

        /**
         * How long one lock statement may take, the wait for a connection of the pool included (whatever the pool's
         * own connection timeout), before it fails with a store error; default 5 seconds.
         */
        public Builder statementTimeout(Duration statementTimeout) {
            this.statementTimeout = statementTimeout;
            return this;
        }

        /**
         * The application this manager belongs to, for the rule of one lock table per application: another lock
         * table in the database counts as in use by it when a manager runs on it (which keeps a presence row there),
         * or it has a live lease, or one that ended in the last 24 hours, whose holder name starts with
         * {@code applicationName@}, as {@code
         * holderName(EngineBuilder.holderNameOf(applicationName))} names it. Default none: then any such lease counts,
         * whoever holds it.
         */
        public Builder applicationName(String applicationName) {
            this.applicationName = applicationName;
            return this;
        }

        /**
         * Whether the manager may start while another Fencepost lock table of its application is in use in the
         * database (see {@link #applicationName}); default false: {@link #build()} then refuses, since instances that
         * lock in different tables do not exclude each other. Allow it only when separate tables are intended.
         */
        public Builder allowOtherLockTables(boolean allowOtherLockTables) {
            this.allowOtherLockTables = allowOtherLockTables;
            return this;
        }

        /**
         * How many connections of the pool the manager may hold at once to wait in PostgreSQL's own lock queue: one per
         * key it waits for behind another client, kept while it holds the key it got there, so that the release before
         * its turn wakes it in the server. Past the bound, and behind a pooler in transaction mode, waiters are woken by
         * notifications instead. 0 turns the queue off. Default {@value PostgresLeaseStore#DEFAULT_QUEUE_SESSIONS}.
         */
        public Builder queueSessions(int queueSessions) {
            this.queueSessions = queueSessions;
            return this;
        }

        /**
         * Whether the manager removes, in the background, what ended leases and lapsed waiter registrations leave in
         * the lock table and its queue (a crashed holder's lease, a key used once); default true. Every instance may
         * sweep: their statements skip each other's rows.
         */
        public Builder sweep(boolean sweep) {
            this.sweep = sweep;
            return this;
        }

        /**
         * How long the sweeper pauses between sweeps that found less than a full batch; a full batch is followed by
         * the next at once. Default 1 minute.
         */
        public Builder sweepInterval(Duration sweepInterval) {
            this.sweepInterval = sweepInterval;
            return this;
        }

        /**
         * How many rows of one kind one sweep statement removes at most (1 to 100,000), which bounds how long it runs
         * and holds row locks. Default {@value PostgresLockManager#DEFAULT_SWEEP_BATCH_SIZE}.
         */
        public Builder sweepBatchSize(int sweepBatchSize) {
            this.sweepBatchSize = sweepBatchSize;
            return this;
        }

        /**
         * How long a record of the fencing guard ({@link JdbcFencingGuard}, table {@code <table>_fence}) must have
         * gone without an accepted write before the sweeper removes it; default none: records are kept. A removed
         * record no longer refuses stale tokens at its resource: a holder that writes with a token older than the last
         * one accepted there, after this long, is let through. Set it well above the longest time a write can be
         * delayed (a frozen process, a queued message), such as 7 days.
         */
        public Builder sweepFenceRowAge(Duration sweepFenceRowAge) {
            this.sweepFenceRowAge = sweepFenceRowAge;
            return this;
        }

        /**
         * Validates the settings, creates or checks the schema as configured, and builds the manager.
         *
         * @throws IllegalArgumentException for an invalid setting, before anything touches the database
         * @throws UnsafeLockStoreException when the database cannot keep locks safe: not PostgreSQL (CockroachDB,
         *     YugabyteDB), a read-only standby or read-only transactions, advisory locks that do not lock
         * @throws LockTableSplitException when another lock table of the application is in use and that is not
         *     allowed ({@link #allowOtherLockTables}); checked before the schema is created
         * @throws LockSchemaException when the schema cannot be created or is not as expected
         */
        public PostgresLockManager build() {
            if (schemaMode == null) {
                throw new IllegalArgumentException("schema mode must be one of CREATE, VALIDATE or NONE, was null");
            }
            PostgresLeaseStore store = new PostgresLeaseStore(dataSource, tableName, statementTimeout, queueSessions);
            TableName table = TableName.of(tableName);
            PostgresSweeper.requireValid(sweepInterval, sweepBatchSize, sweepFenceRowAge);
            PostgresSweeper sweeper = sweep
                    ? new PostgresSweeper(
                            dataSource, table, statementTimeout, sweepInterval, sweepBatchSize, sweepFenceRowAge)
                    : null;
            ServerCheck serverCheck = new ServerCheck(dataSource, table);
            serverCheck.check();
            serverCheck.sharesSessions().ifPresent(store::sessionsShared);
            OtherLockTables otherLockTables = new OtherLockTables(table, applicationName);
            OneLockTableCheck oneTable =
                    new OneLockTableCheck(dataSource, otherLockTables, timeoutSeconds(statementTimeout));
            oneTable.check(allowOtherLockTables);
            new SchemaInitializer(dataSource, tableName).apply(schemaMode);
            EngineSettings settings = engineSettings();
            Presence presence = new Presence(store.runner(), table, settings.holderName());
            if (markPresent(presence) && !allowOtherLockTables) {
                try {
                    // Again, now that this manager is present: of two instances that start at the same moment on two
                    // tables, the later check sees the earlier one's row, so that at least one of them refuses.
                    oneTable.check(false);
                } catch (LockTableSplitException e) {
                    withdraw(presence, e);
                    throw e;
                }
            }
            presence.keepFresh();
            return new PostgresLockManager(store, otherLockTables, presence, settings, sweeper);
        }

        /**
         * Writes the presence row; a database that does not take it now leaves the table unmarked until the first
         * refresh, as the checks of an unreachable database are skipped.
         *
         * @return whether the row was written
         */
        private static boolean markPresent(Presence presence) {
            try {
                presence.mark();
                return true;
            } catch (LockStoreException e) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "could not mark the lock manager present in its lock table, which other instances' check for"
                                + " a second lock table then does not see until the next refresh: " + e.getMessage());
                return false;
            }
        }

        private static void withdraw(Presence presence, LockTableSplitException refusal) {
            try {
                presence.withdraw();
            } catch (LockStoreException e) {
                refusal.addSuppressed(e);
            }
        }

        /** The statement timeout in whole seconds, rounded up, as JDBC's query timeout takes it. */
        private static int timeoutSeconds(Duration timeout) {
            long seconds = timeout.getSeconds() + (timeout.getNano() > 0 ? 1 : 0);
            return (int) Math.max(1, Math.min(Integer.MAX_VALUE, seconds));
        }
    }
}
