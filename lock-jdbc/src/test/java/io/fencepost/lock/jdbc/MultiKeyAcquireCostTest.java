package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.MultiLease;
import io.fencepost.lock.jdbc.test.CloseAfterEach;
import io.fencepost.lock.jdbc.test.CountingDataSource;
import io.fencepost.lock.jdbc.test.FixedPool;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What a set of keys costs on PostgreSQL: one statement on the wire and one transaction, committed durably (one WAL
 * flush), whatever the number of keys; a busy set writes nothing; the set's release is one more statement. The WAL statistics of {@code pg_stat_wal} are the
 * whole server's, which other clients share, so the commit is observed per transaction instead: a deferred trigger
 * records, at commit, each granted row's transaction and the {@code synchronous_commit} that the commit uses.
 */
class MultiKeyAcquireCostTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private static final LockOptions HOLD = LockOptions.of(Duration.ofMinutes(5));

    private static final String TABLE = "set_cost";

    @RegisterExtension
    final CloseAfterEach closer = new CloseAfterEach();

    private static String key() {
        return "set:" + UUID.randomUUID();
    }

    /** The manager on a pool of counted, unpooled connections; the schema and the probe made, the counts reset. */
    private LockManager counted(CountingDataSource counting) throws SQLException {
        HikariDataSource pool = closer.add(FixedPool.over(counting, 2));
        LockManager locks =
                closer.add(PostgresLockManager.builder(pool).tableName(TABLE).build());
        locks.acquire(key(), HOLD).release(); // creates the schema and opens the pool: not the subject
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("""
                    CREATE TABLE IF NOT EXISTS set_cost_log (
                        id bigserial, lock_key text, txid xid8, mode text);
                    CREATE OR REPLACE FUNCTION set_cost_record() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        INSERT INTO set_cost_log (lock_key, txid, mode)
                        VALUES (NEW.lock_key, pg_current_xact_id(), current_setting('synchronous_commit'));
                        RETURN NULL;
                    END $$;
                    DROP TRIGGER IF EXISTS set_cost_at_commit ON set_cost;
                    CREATE CONSTRAINT TRIGGER set_cost_at_commit AFTER INSERT OR UPDATE ON set_cost
                        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION set_cost_record();
                    """);
        }
        counting.reset();
        return locks;
    }

    private static CountingDataSource countingConnections() {
        PGSimpleDataSource physical = new PGSimpleDataSource();
        physical.setURL(db.jdbcUrl());
        return new CountingDataSource(physical);
    }

    /** What the probe recorded of {@code keys}' rows: "transaction:synchronous_commit" per row. */
    private static List<String> commits(List<String> keys) throws SQLException {
        List<String> commits = new ArrayList<>();
        try (Connection connection = db.dataSource().getConnection();
                PreparedStatement query = connection.prepareStatement(
                        "SELECT txid::text, mode FROM set_cost_log WHERE lock_key = ANY (?) ORDER BY id")) {
            query.setArray(1, connection.createArrayOf("text", keys.toArray()));
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    commits.add(rows.getString(1) + ":" + rows.getString(2));
                }
            }
        }
        return commits;
    }

    @ParameterizedTest(name = "{0} keys")
    @ValueSource(ints = {2, 8})
    void anUncontendedSetIsOneStatementAndOneDurableCommit(int size) throws SQLException {
        CountingDataSource counting = countingConnections();
        LockManager locks = counted(counting);
        List<String> keys = IntStream.range(0, size).mapToObj(i -> key()).toList();

        MultiLease set = locks.acquireAll(keys, HOLD);

        assertThat(counting.statements())
                .as("statements %s", counting.executedSql())
                .isEqualTo(1);
        assertThat(counting.roundTrips()).as("round trips").isEqualTo(1);
        List<String> commits = commits(keys);
        assertThat(commits).as("one row per key, granted").hasSize(size);
        assertThat(commits.stream().distinct())
                .as("one transaction, committed durably")
                .hasSize(1);
        assertThat(commits.get(0)).endsWith(":on");

        counting.reset();
        assertThat(set.release()).isTrue();

        assertThat(counting.statements())
                .as("the release: statements %s", counting.executedSql())
                .isEqualTo(1);
        keys.forEach(key -> assertThat(locks.inspect(key)).as(key).isEmpty());
    }

    @Test
    void aBusySetIsOneStatementAndWritesNothing() throws SQLException {
        CountingDataSource counting = countingConnections();
        LockManager locks = counted(counting);
        String free = key();
        String held = key();
        Lease holder = closer.add(PostgresLockManager.builder(db.dataSource())
                        .tableName(TABLE)
                        .build())
                .acquire(held, HOLD);
        List<String> before = commits(List.of(free, held));

        assertThat(locks.tryAcquireAll(List.of(free, held), HOLD)).isEmpty();

        assertThat(counting.statements())
                .as("statements %s", counting.executedSql())
                .isEqualTo(1);
        assertThat(commits(List.of(free, held))).isEqualTo(before);
        holder.release();
    }

    @Test
    void aWaitingSetMarksTheBusyLeaseAsWaitedForWithoutAFlush() throws SQLException {
        CountingDataSource counting = countingConnections();
        LockManager locks = counted(counting);
        String free = key();
        String held = key();
        Lease holder = closer.add(PostgresLockManager.builder(db.dataSource())
                        .tableName(TABLE)
                        .build())
                .acquire(held, HOLD);
        List<String> before = commits(List.of(held));

        assertThat(locks.tryAcquireAll(
                        List.of(free, held),
                        LockOptions.builder()
                                .leaseTime(HOLD.leaseTime())
                                .waitTime(Duration.ofMillis(200))
                                .build()))
                .isEmpty();

        List<String> after = commits(List.of(held));
        assertThat(after.subList(before.size(), after.size()))
                .as("the marks of the held lease, committed asynchronously")
                .hasSize(1)
                .allMatch(commit -> commit.endsWith(":off"));
        assertThat(commits(List.of(free))).as("the free key").isEmpty();
        holder.release();
    }
}
