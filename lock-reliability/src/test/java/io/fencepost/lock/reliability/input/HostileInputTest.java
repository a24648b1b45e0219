package io.fencepost.lock.reliability.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.JdbcFencingGuard;
import io.fencepost.lock.jdbc.PostgresLeaseStore;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaInitializer;
import io.fencepost.lock.jdbc.SchemaMode;
import io.fencepost.lock.jdbc.test.CountingDataSource;
import io.fencepost.lock.jdbc.test.DelegatingDataSource;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.reliability.support.Pools;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A catalogue of hostile and broken input: keys full of SQL and Unicode, keys that cannot be stored, table names
 * carrying injections, malformed durations, hostile holder and resource names. Whatever is accepted is stored and
 * compared verbatim; whatever is refused is refused with {@link IllegalArgumentException} before a single
 * statement runs.
 */
@Tag("full")
class HostileInputTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private Counting counting;

    private PostgresLockManager locks;

    private PostgresLockManager other;

    @BeforeAll
    static void schema() {
        PostgresLockManager.create(db.dataSource()).close();
    }

    @BeforeEach
    void managers() {
        counting = new Counting(db.dataSource());
        locks = PostgresLockManager.builder(counting)
                .schemaMode(SchemaMode.NONE)
                .build();
        other = PostgresLockManager.builder(db.dataSource())
                .schemaMode(SchemaMode.NONE)
                .build();
        counting.reset();
    }

    @AfterEach
    void close() {
        locks.close();
        other.close();
    }

    static Stream<String> hostileKeys() {
        return Stream.of(
                "'; DROP TABLE distributed_lock; --",
                "\" OR \"1\"=\"1",
                "' OR '1'='1' --",
                "''",
                "\\",
                "\\'; SELECT pg_sleep(10); --",
                "%_%",
                "$1 $2 ?",
                "{0} %s %n ${jndi:ldap://127.0.0.1/x}",
                "/* comment */ key",
                "line\nbreak\ttab\rreturn",
                "ключ:🔒:مفتاح:鍵:🧑‍💻",
                "\u202Eevil-right-to-left",
                "zero\u200Bwidth",
                "e\u0301", // e + combining acute: a different key from é (no normalization)
                "\u00E9",
                " padded ",
                "🔒".repeat(255)); // 255 code points, 510 UTF-16 chars: the longest key
    }

    @ParameterizedTest
    @MethodSource("hostileKeys")
    void aHostileKeyIsLockedStoredAndReleasedVerbatim(String key) throws Exception {
        try (Lease lease = locks.acquire(key, LockOptions.of(Duration.ofSeconds(10)))) {
            assertThat(lease.key()).isEqualTo(key);
            assertThat(other.tryAcquire(key, LockOptions.of(Duration.ofSeconds(1))))
                    .as("the same key is busy")
                    .isEmpty();
            LeaseInfo info = other.inspect(key).orElseThrow();
            assertThat(info.key()).isEqualTo(key);
            assertThat(storedKeys()).containsExactly(key);
        }
        assertThat(storedKeys()).isEmpty();
        assertThat(Pools.queryLong(db.jdbcUrl(), "SELECT count(*) FROM pg_class WHERE relname = 'distributed_lock'", 0))
                .as("the lock table is still there")
                .isOne();
    }

    @Test
    void keysThatLookAlikeAreDifferentKeys() {
        List<String> lookAlikes = List.of("e\u0301", "\u00E9", "key", "KEY", "key ", " key", "key\u200B");
        List<Lease> leases = new ArrayList<>();
        for (String key : lookAlikes) {
            leases.add(other.acquire(key, LockOptions.of(Duration.ofSeconds(10))));
        }
        assertThat(leases).allSatisfy(lease -> assertThat(lease.isHeld()).isTrue());
        leases.forEach(Lease::release);
    }

    static Stream<String> unstorableKeys() {
        return Stream.of(
                null,
                "",
                " ",
                "\t\n",
                "nul\0inside",
                "\0",
                "\uD800", // a lone high surrogate
                "a\uDC00b", // a lone low surrogate
                "🔒\uD83D", // a pair cut in half
                "x".repeat(256),
                "🔒".repeat(256));
    }

    @ParameterizedTest
    @MethodSource("unstorableKeys")
    void aKeyThatCannotBeStoredIsRefusedBeforeAnyStatement(String key) {
        assertThatThrownBy(() -> locks.acquire(key, LockOptions.of(Duration.ofSeconds(1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key");
        assertThatThrownBy(() -> locks.tryAcquire(key, LockOptions.of(Duration.ofSeconds(1))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locks.inspect(key)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locks.withLock(key, LockOptions.of(Duration.ofSeconds(1)), lease -> "ran"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(counting.connections.get()).as("connections taken").isZero();
    }

    static Stream<String> injectedTableNames() {
        return Stream.of(
                "distributed_lock; DROP TABLE distributed_lock; --",
                "distributed_lock\"; DROP TABLE distributed_lock; --",
                "x\" (id int); --",
                "public.distributed_lock",
                "pg_catalog.pg_class",
                "Distributed_Lock",
                "lock-table",
                "lock table",
                "lóck",
                "lock\0",
                "1lock",
                "",
                "a".repeat(49),
                null);
    }

    @ParameterizedTest
    @MethodSource("injectedTableNames")
    void aTableNameCarryingAnInjectionFailsTheBuildAndNothingIsExecuted(String tableName) {
        CountingDataSource statements = new CountingDataSource(db.unpooledDataSource());
        Counting connections = new Counting(statements);
        for (SchemaMode mode : SchemaMode.values()) {
            assertThatThrownBy(() -> PostgresLockManager.builder(connections)
                            .tableName(tableName)
                            .schemaMode(mode)
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("table name");
        }
        assertThatThrownBy(() -> new PostgresLeaseStore(connections, tableName, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SchemaInitializer(connections, tableName))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new JdbcFencingGuard(tableName)).isInstanceOf(IllegalArgumentException.class);
        assertThat(statements.statements()).as("statements executed").isZero();
        assertThat(connections.connections.get()).as("connections opened").isZero();
    }

    @Test
    void malformedDurationsAreRefusedWhenTheOptionsAreBuilt() {
        List<Duration> notPositive = Arrays.asList(null, Duration.ZERO, Duration.ofMillis(-1), Duration.ofNanos(-1));
        for (Duration bad : notPositive) {
            assertThatThrownBy(() -> LockOptions.builder().leaseTime(bad).build())
                    .as("lease time %s", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lease time");
            assertThatThrownBy(() -> LockOptions.builder().maxHoldTime(bad).build())
                    .as("max hold time %s", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("max hold time");
        }
        assertThatThrownBy(() -> LockOptions.of(Duration.ofNanos(999_999)))
                .as("a sub-millisecond lease")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1ms");
        for (Duration bad : Arrays.asList(null, Duration.ofMillis(-1), Duration.ofDays(-1))) {
            assertThatThrownBy(() -> LockOptions.builder().waitTime(bad).build())
                    .as("wait time %s", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("wait time");
            assertThatThrownBy(() -> LockOptions.builder().minHoldTime(bad).build())
                    .as("min hold time %s", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("min hold time");
        }
        assertThatThrownBy(() -> LockOptions.builder()
                        .leaseTime(Duration.ofSeconds(1))
                        .renew(false)
                        .minHoldTime(Duration.ofSeconds(2))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("min hold time");
        assertThatThrownBy(() -> LockOptions.builder().name(" ").build()).isInstanceOf(IllegalArgumentException.class);
        assertThat(counting.connections.get()).isZero();
    }

    /**
     * Fails today (see docs/reliability.md, "Findings"): {@code LockOptions} accepts lease and wait times whose
     * nanoseconds overflow a {@code long} (about 292 years). A wait time that long throws {@code ArithmeticException}
     * from {@code DefaultLockManager.tryAcquire}; a lease time that long is granted by the store first and then
     * throws {@code ArithmeticException} from {@code Grant.<init>}, leaving the key locked for the whole lease by
     * nobody. {@code FOREVER} throws {@code ArithmeticException} from {@code LockOptions.Builder.build()} itself.
     */
    @Test
    void absurdlyLongDurationsAreRefusedWithAnIllegalArgumentBeforeTheStoreIsTouched() {
        for (Duration huge : List.of(Duration.ofDays(365L * 300), ChronoUnit.FOREVER.getDuration())) {
            assertThatThrownBy(() -> locks.acquire("absurd:lease", LockOptions.of(huge)))
                    .as("lease time %s", huge)
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> locks.acquire(
                            "absurd:wait", LockOptions.builder().waitTime(huge).build()))
                    .as("wait time %s", huge)
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(other.inspect("absurd:lease")).as("no orphaned grant").isEmpty();
        }
    }

    @Test
    void aLeaseOfACenturyIsGrantedRenewedAndReleasedNormally() {
        try (Lease lease = locks.acquire("century", LockOptions.of(Duration.ofDays(36_500)))) {
            assertThat(lease.isHeld()).isTrue();
            assertThat(other.inspect("century").orElseThrow().expiresAt())
                    .isAfter(java.time.Instant.parse("2100-01-01T00:00:00Z"));
        }
        assertThat(other.inspect("century")).isEmpty();
    }

    @Test
    void hostileHolderNamesAreStoredVerbatimOrCutToTheColumn() {
        String hostile = "app'); DELETE FROM distributed_lock; --@host";
        try (PostgresLockManager named = PostgresLockManager.builder(db.dataSource())
                        .schemaMode(SchemaMode.NONE)
                        .holderName(hostile)
                        .build();
                Lease lease = named.acquire("holder:hostile", LockOptions.of(Duration.ofSeconds(5)))) {
            assertThat(other.inspect("holder:hostile").orElseThrow().holder()).isEqualTo(hostile);
        }
        String longName = "h".repeat(300);
        try (PostgresLockManager named = PostgresLockManager.builder(db.dataSource())
                        .schemaMode(SchemaMode.NONE)
                        .holderName(longName)
                        .build();
                Lease lease = named.acquire("holder:long", LockOptions.of(Duration.ofSeconds(5)))) {
            assertThat(other.inspect("holder:long").orElseThrow().holder()).isEqualTo("h".repeat(255));
        }
        // (null means "the default name")
        for (String blank : Arrays.asList("", "  ", "\t")) {
            assertThatThrownBy(() -> PostgresLockManager.builder(db.dataSource())
                            .schemaMode(SchemaMode.NONE)
                            .holderName(blank)
                            .build())
                    .as("holder name %s", blank)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void hostileResourceNamesAreBoundNotSplicedAndNulIsRefused() throws SQLException {
        JdbcFencingGuard guard = new JdbcFencingGuard();
        String resource = "account'; DROP TABLE distributed_lock_fence; --";
        try (Connection connection = db.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            guard.check(connection, resource, 7);
            connection.commit();
            assertThatThrownBy(() -> guard.check(connection, "nul\0resource", 7))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> guard.check(connection, " ", 7)).isInstanceOf(IllegalArgumentException.class);
            connection.rollback();
        }
        assertThat(Pools.queryLong(
                        db.jdbcUrl(),
                        "SELECT fencing_token FROM distributed_lock_fence WHERE resource = '"
                                + resource.replace("'", "''") + "'",
                        -1))
                .isEqualTo(7);
    }

    private List<String> storedKeys() throws SQLException {
        List<String> keys = new ArrayList<>();
        try (Connection connection = db.dataSource().getConnection();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT lock_key FROM distributed_lock WHERE lock_key NOT LIKE 'fencepost-presence/%'");
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                keys.add(rows.getString(1));
            }
        }
        return keys;
    }

    /** Counts the connections anything takes from it. */
    static final class Counting extends DelegatingDataSource {

        final AtomicInteger connections = new AtomicInteger();

        Counting(DataSource target) {
            super(target);
        }

        void reset() {
            connections.set(0);
        }

        @Override
        public Connection getConnection() throws SQLException {
            connections.incrementAndGet();
            return super.getConnection();
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            connections.incrementAndGet();
            return super.getConnection(username, password);
        }
    }
}
