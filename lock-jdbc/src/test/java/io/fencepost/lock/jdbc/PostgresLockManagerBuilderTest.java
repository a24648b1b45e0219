package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/** {@link PostgresLockManager}: building it, and the engine over the PostgreSQL store end to end. */
class PostgresLockManagerBuilderTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    private static String key() {
        return "manager-test:" + UUID.randomUUID();
    }

    @Test
    void createAppliesTheSchemaAndGrantsReleasesAndInspects() {
        try (PostgresLockManager locks = PostgresLockManager.create(db.dataSource())) {
            String key = key();

            try (Lease lease = locks.acquire(key, LockOptions.of(Duration.ofSeconds(30)))) {
                assertThat(lease.fencingToken()).isPositive();
                assertThat(locks.inspect(key))
                        .map(LeaseInfo::holder)
                        .contains(locks.holderName())
                        .isNotEmpty();
                assertThat(lease.release()).isTrue();
            }

            assertThat(locks.inspect(key)).isEmpty();
            assertThat(locks.tableName()).isEqualTo(PostgresLockManager.DEFAULT_TABLE_NAME);
        }
    }

    @Test
    void theBuilderCarriesTableNameHolderAndTimeout() {
        try (PostgresLockManager locks = PostgresLockManager.builder(db.dataSource())
                .tableName("app_locks")
                // beside distributed_lock, where this class's other managers run
                .allowOtherLockTables(true)
                .holderName("billing@node-1")
                .statementTimeout(Duration.ofSeconds(2))
                .schemaMode(SchemaMode.CREATE)
                .build()) {
            String key = key();

            Integer answer = locks.withLock(key, LockOptions.of(Duration.ofSeconds(30)), lease -> {
                assertThat(locks.inspect(key)).map(LeaseInfo::holder).contains("billing@node-1");
                return 42;
            });

            assertThat(answer).isEqualTo(42);
            assertThat(locks.leaseStore().tableName()).isEqualTo("app_locks");
            new SchemaInitializer(db.dataSource(), "app_locks").validate();
        }
    }

    @Test
    void twoManagersExcludeEachOtherAndTheSecondTakesOverAfterExpiry() {
        try (PostgresLockManager first = PostgresLockManager.create(db.dataSource());
                PostgresLockManager second = PostgresLockManager.create(db.dataSource())) {
            String key = key();
            LockOptions shortLease = LockOptions.builder()
                    .leaseTime(Duration.ofMillis(300))
                    .renew(false)
                    .build();
            Lease held = first.acquire(key, shortLease);

            assertThat(second.tryAcquire(key, shortLease)).isEmpty();

            Lease taken = await().atMost(Duration.ofSeconds(10))
                    .until(() -> second.tryAcquire(key, shortLease), Optional::isPresent)
                    .orElseThrow();
            assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(held.release()).isFalse();
            assertThat(taken.release()).isTrue();
        }
    }

    @Test
    void invalidSettingsFailBeforeTheDatabaseIsTouched() {
        AtomicInteger connections = new AtomicInteger();
        DataSource counting = countingDataSource(connections);
        UnaryOperator<PostgresLockManager.Builder> none = builder -> builder;

        assertThatIllegalArgumentException()
                .isThrownBy(() -> PostgresLockManager.builder(counting)
                        .tableName("x;drop")
                        .build())
                .withMessageStartingWith("table name 'x;drop' is not a valid identifier");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> PostgresLockManager.builder(counting)
                        .statementTimeout(Duration.ZERO)
                        .build())
                .withMessage("statement timeout must be positive, was PT0S");
        assertThatIllegalArgumentException()
                .isThrownBy(() ->
                        PostgresLockManager.builder(counting).holderName(" ").build())
                .withMessageContaining("holder name");
        assertThatIllegalArgumentException()
                .isThrownBy(() ->
                        PostgresLockManager.builder(counting).schemaMode(null).build())
                .withMessageContaining("schema mode");
        assertThat(none.apply(PostgresLockManager.builder(counting))).isNotNull();
        assertThat(connections).hasValue(0);
    }

    @Test
    void validateModeFailsStartUpWhenTheTableIsMissing() {
        assertThatThrownBy(() -> PostgresLockManager.builder(db.dataSource())
                        .tableName("not_created_locks")
                        // beside distributed_lock, where this class's other managers run
                        .allowOtherLockTables(true)
                        .schemaMode(SchemaMode.VALIDATE)
                        .build())
                .isInstanceOf(LockSchemaException.class)
                .hasMessageContaining("'not_created_locks' is not ready")
                .hasMessageContaining("schema-postgresql.sql");
    }

    @Test
    void noneModeLeavesTheSchemaAloneAndAcquireThenSaysWhatIsMissing() {
        try (PostgresLockManager locks = PostgresLockManager.builder(db.dataSource())
                .tableName("never_created_locks")
                // beside distributed_lock, where this class's other managers run
                .allowOtherLockTables(true)
                .schemaMode(SchemaMode.NONE)
                .build()) {

            assertThatThrownBy(() -> locks.acquire("k", LockOptions.defaults()))
                    .isInstanceOf(LockStoreException.class)
                    .hasMessageContaining("SQLState 42P01")
                    .hasMessageContaining("schema-postgresql.sql");
        }
    }

    private static DataSource countingDataSource(AtomicInteger connections) {
        return new PGSimpleDataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                connections.incrementAndGet();
                throw new SQLException("must not be called", "XX000");
            }
        };
    }
}
