package io.fencepost.lock.jdbc;

import io.fencepost.lock.contract.LeaseHandOverContract;
import io.fencepost.lock.contract.LeaseStoreContract;
import io.fencepost.lock.contract.LockManagerContract;
import io.fencepost.lock.contract.LockQueueContract;
import io.fencepost.lock.contract.WaiterRelayContract;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.LeaseStore;
import java.time.Duration;
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
            implements LeaseHandOverContract, WaiterRelayContract, LockQueueContract {

        @Override
        protected LeaseStore createStore() {
            return newStore();
        }
    }

    @Nested
    class ManagerContract extends LockManagerContract {

        @Override
        protected LeaseStore createStore() {
            return newStore();
        }
    }
}
