package io.fencepost.lock.jdbc;

import io.fencepost.lock.HeldLeaseInfo;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockAdmin;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockedCallable;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.spi.LockListener;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A {@link LockManager} on PostgreSQL without Spring: the lock engine over a {@link PostgresLeaseStore}, with
 * the schema created or checked when it is built.
 */
public final class PostgresLockManager implements LockManager, LockAdmin, AutoCloseable {

    /** The lock table when none is configured. */
    public static final String DEFAULT_TABLE_NAME = TableName.DEFAULT;

    /** How long one lock statement may take when nothing else is configured. */
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

    /** What happens to the schema when nothing else is configured: fencepost creates it. */
    public static final SchemaMode DEFAULT_SCHEMA_MODE = SchemaMode.CREATE;

    private final PostgresLeaseStore store;

    private final DefaultLockManager engine;

    private PostgresLockManager(PostgresLeaseStore store, DefaultLockManager engine) {
        this.store = store;
        this.engine = engine;
    }

    /**
     * A lock manager with the defaults: table {@value #DEFAULT_TABLE_NAME}, created if missing.
     *
     * @throws LockSchemaException when the schema cannot be created
     */
    public static PostgresLockManager create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /**
     * A builder starting from the defaults.
     *
     * @param dataSource the application's plain connection pool: every lock statement takes its own connection
     *     and commits on its own, also while the calling thread has a transaction open (a transaction-aware proxy
     *     that hands out the caller's connection would defeat that)
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    @Override
    public Lease acquire(String key, LockOptions options) {
        return engine.acquire(key, options);
    }

    @Override
    public Optional<Lease> tryAcquire(String key, LockOptions options) {
        return engine.tryAcquire(key, options);
    }

    @Override
    public <T> T withLock(String key, LockOptions options, LockedCallable<T> work) {
        return engine.withLock(key, options, work);
    }

    @Override
    public Optional<LeaseInfo> inspect(String key) {
        return engine.inspect(key);
    }

    @Override
    public List<HeldLeaseInfo> heldLeases() {
        return engine.heldLeases();
    }

    @Override
    public boolean forceRelease(String key) {
        return engine.forceRelease(key);
    }

    /** The name this manager writes as the holder of its leases. */
    public String holderName() {
        return engine.holderName();
    }

    /** The lock table this manager uses. */
    public String tableName() {
        return store.tableName();
    }

    PostgresLeaseStore leaseStore() {
        return store;
    }

    /** Stops renewal; leases still held then run out on their own. */
    @Override
    public void close() {
        engine.close();
        store.close();
    }

    @Override
    public String toString() {
        return "PostgresLockManager[table=" + store.tableName() + ", holder=" + engine.holderName() + "]";
    }

    /** Builds a {@link PostgresLockManager}; {@link #build()} validates every setting before touching the database. */
    public static final class Builder {

        private final DataSource dataSource;

        private String tableName = DEFAULT_TABLE_NAME;

        private SchemaMode schemaMode = DEFAULT_SCHEMA_MODE;

        private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;

        private String holderName;

        private Clock clock;

        private LockListener listener;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /**
         * The lock table; its sequence is {@code <table>_fence_seq}. Lower-case letters, digits and {@code _},
         * at most 48 characters; default {@value PostgresLockManager#DEFAULT_TABLE_NAME}.
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

        /** The human-readable holder name shown by {@code inspect}; default {@code user@host}. */
        public Builder holderName(String holderName) {
            this.holderName = holderName;
            return this;
        }

        /** The JVM clock for local bookkeeping only; expiry is always decided by the database's clock. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** Observes acquisitions, releases, renewals and losses, for metrics and logs. */
        public Builder listener(LockListener listener) {
            this.listener = listener;
            return this;
        }

        /**
         * Validates the settings, creates or checks the schema as configured, and builds the manager.
         *
         * @throws IllegalArgumentException for an invalid setting, before anything touches the database
         * @throws LockSchemaException when the schema cannot be created or is not as expected
         */
        public PostgresLockManager build() {
            if (statementTimeout == null || statementTimeout.isNegative() || statementTimeout.isZero()) {
                throw new IllegalArgumentException("statement timeout must be positive, was " + statementTimeout);
            }
            if (schemaMode == null) {
                throw new IllegalArgumentException("schema mode must be one of CREATE, VALIDATE or NONE, was null");
            }
            PostgresLeaseStore store = new PostgresLeaseStore(dataSource, tableName, statementTimeout);
            DefaultLockManager.Builder engine = DefaultLockManager.builder(store);
            if (holderName != null) {
                engine.holderName(holderName);
            }
            if (clock != null) {
                engine.clock(clock);
            }
            if (listener != null) {
                engine.listener(listener);
            }
            new SchemaInitializer(dataSource, tableName).apply(schemaMode);
            return new PostgresLockManager(store, engine.build());
        }
    }
}
