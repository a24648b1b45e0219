package io.fencepost.lock.jdbc;

import io.fencepost.lock.contract.FairQueueContract;
import io.fencepost.lock.contract.LeaseHandOverContract;
import io.fencepost.lock.contract.LeaseStoreContract;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.LeaseStore;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The {@link LeaseStore} contract, run against PostgreSQL. */
class PostgresLeaseStoreContractTest extends LeaseStoreContract implements LeaseHandOverContract, FairQueueContract {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase(20);

    @BeforeAll
    static void createSchema() {
        new SchemaInitializer(db.dataSource(), "distributed_lock").create();
    }

    @Override
    protected LeaseStore createStore() {
        // Every test of the contract uses fresh random keys, so one table serves them all.
        return new PostgresLeaseStore(db.dataSource(), "distributed_lock", Duration.ofSeconds(10));
    }
}
