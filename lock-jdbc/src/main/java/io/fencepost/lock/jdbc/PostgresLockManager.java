package io.fencepost.lock.jdbc;

import io.fencepost.lock.LockManager;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.core.EngineBuilder;
import io.fencepost.lock.core.EngineSettings;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * A {@link LockManager} on PostgreSQL without Spring: the lock engine over a {@link PostgresLeaseStore}, with the
 * schema created or checked when it is built.
 */
public final class PostgresLockManager extends DefaultLockManager {

    /** The lock table when none is configured. */
    public static final String DEFAULT_TABLE_NAME = TableName.DEFAULT;

    /** How long one lock statement may take when nothing else is configured. */
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

    /** What happens to the schema when nothing else is configured: fencepost creates it. */
    public static final SchemaMode DEFAULT_SCHEMA_MODE = SchemaMode.CREATE;

    private final PostgresLeaseStore store;

    private PostgresLockManager(PostgresLeaseStore store, EngineSettings settings) {
        super(store, settings);
        this.store = store;
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

    /** Stops renewal and listening; leases still held then run out on their own. */
    @Override
    public void close() {
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

        /** How long one lock statement may take before it fails with a store error; default 5 seconds. */
        public Builder statementTimeout(Duration statementTimeout) {
            this.statementTimeout = statementTimeout;
            return this;
        }

        /**
         * Validates the settings, creates or checks the schema as configured, and builds the manager.
         *
         * @throws IllegalArgumentException for an invalid setting, before anything touches the database
         * @throws UnsafeLockStoreException when the database cannot keep locks safe: not PostgreSQL (CockroachDB,
         *     YugabyteDB), a read-only standby or read-only transactions, advisory locks that do not lock
         * @throws LockSchemaException when the schema cannot be created or is not as expected
         */
        public PostgresLockManager build() {
            if (schemaMode == null) {
                throw new IllegalArgumentException("schema mode must be one of CREATE, VALIDATE or NONE, was null");
            }
            PostgresLeaseStore store = new PostgresLeaseStore(dataSource, tableName, statementTimeout);
            new ServerCheck(dataSource, TableName.of(tableName)).check();
            new SchemaInitializer(dataSource, tableName).apply(schemaMode);
            return new PostgresLockManager(store, engineSettings());
        }
    }
}
