package io.fencepost.lock.jdbc;

import io.fencepost.lock.contract.LeaseHandOverContract;
import io.fencepost.lock.contract.LeaseStoreContract;
import io.fencepost.lock.contract.LockManagerContract;
import io.fencepost.lock.contract.LockQueueContract;
import io.fencepost.lock.contract.MultiKeyAcquireContract;
import io.fencepost.lock.contract.MultiLeaseContract;
import io.fencepost.lock.contract.WaiterRelayContract;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.LeaseStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/**
 * The {@link LeaseStore} contract and the lock manager contract (extend, non-reentrant holds, shared leases, permits),
 * run against PostgreSQL on one lock table.
 */
class PostgresLeaseStoreContractTest {

    /**
     * Started and closed here rather than registered as an extension: the nested suites would inherit the extension,
     * and the first to finish would drop the database under the second.
     */
    private static final PostgresTestDatabase db = new PostgresTestDatabase(30);

    @BeforeAll
    static void createSchema() {
        db.start();
        new SchemaInitializer(db.dataSource(), "distributed_lock").create();
        recordGrants();
    }

    /**
     * The store's history for {@link MultiKeyAcquireContract}: a trigger records every grant (a new row, or a new
     * fencing token on a row) in a table of its own, in the granting transaction, so that only grants that were
     * committed, and so were visible to others, are kept.
     */
    private static void recordGrants() {
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(
                    "CREATE TABLE grant_history (id bigserial PRIMARY KEY, lock_key text NOT NULL, fencing_token bigint NOT NULL)");
            statement.execute("""
                    CREATE FUNCTION record_grant() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        INSERT INTO grant_history (lock_key, fencing_token) VALUES (NEW.lock_key, NEW.fencing_token);
                        RETURN NULL;
                    END $$""");
            statement.execute("""
                    CREATE TRIGGER record_insert AFTER INSERT ON distributed_lock
                       FOR EACH ROW EXECUTE FUNCTION record_grant()""");
            statement.execute("""
                    CREATE TRIGGER record_update AFTER UPDATE ON distributed_lock
                       FOR EACH ROW WHEN (OLD.fencing_token IS DISTINCT FROM NEW.fencing_token)
                       EXECUTE FUNCTION record_grant()""");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Long> grantHistory(String key) {
        try (Connection connection = db.dataSource().getConnection();
                PreparedStatement statement = connection.prepareStatement(
                        "SELECT fencing_token FROM grant_history WHERE lock_key = ? ORDER BY id")) {
            statement.setString(1, key);
            List<Long> tokens = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    tokens.add(rows.getLong(1));
                }
            }
            return tokens;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void dropDatabase() {
        db.close();
    }

    /** Every test of the contracts uses fresh random keys, so one table serves them all. */
    private static LeaseStore newStore() {
        return new PostgresLeaseStore(db.dataSource(), "distributed_lock", Duration.ofSeconds(10));
    }

    /** The store's statements: what depends on the server's version, so it also runs on each other major version. */
    @Nested
    @Tag("server-version")
    class StoreContract extends LeaseStoreContract
            implements LeaseHandOverContract, WaiterRelayContract, LockQueueContract, MultiKeyAcquireContract {

        @Override
        protected LeaseStore createStore() {
            return newStore();
        }

        @Override
        public List<Long> grantHistory(String key) {
            return PostgresLeaseStoreContractTest.grantHistory(key);
        }
    }

    @Nested
    class ManagerContract extends LockManagerContract implements MultiLeaseContract {

        @Override
        protected LeaseStore createStore() {
            return newStore();
        }
    }
}
