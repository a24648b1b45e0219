package io.fencepost.lock.jdbc;

import io.fencepost.lock.contract.LockManagerContract;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.LeaseStore;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The lock manager contract (extend, non-reentrant holds, shared leases, permits), run against PostgreSQL. */
class PostgresLockManagerContractTest extends LockManagerContract {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase(30);

    @BeforeAll
    static void createSchema() {
        new SchemaInitializer(db.dataSource(), "distributed_lock").create();
    }

    @Override
    protected LeaseStore createStore() {
        return new PostgresLeaseStore(db.dataSource(), "distributed_lock", Duration.ofSeconds(10));
    }
}
