package io.fencepost.lock.jdbc;

import io.fencepost.lock.contract.LeaseHandOverContract;
import io.fencepost.lock.contract.LeaseStoreContract;
import io.fencepost.lock.contract.WaiterRelayContract;
import io.fencepost.lock.jdbc.test.PgBouncer;
import io.fencepost.lock.spi.LeaseStore;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store contract (exclusion under racing attempts, renewal, fencing token order, hand-over, registered waiters) through
 * PgBouncer in transaction pooling mode, where every statement may run on another server connection.
 */
@Tag("full")
class PgBouncerLeaseStoreContractTest extends LeaseStoreContract implements LeaseHandOverContract, WaiterRelayContract {

    @RegisterExtension
    static final PgBouncer bouncer = new PgBouncer("transaction");

    private static DataSource pooled;

    @BeforeAll
    static void createSchema() {
        pooled = bouncer.pool("prepareThreshold=0", 20);
        new SchemaInitializer(pooled, "distributed_lock").create();
    }

    /** Notifications do not reach a session behind a transaction pooler: waiters find a hand-over by attempting. */
    @Override
    public boolean relaysMessages() {
        return false;
    }

    @Override
    protected LeaseStore createStore() {
        return new PostgresLeaseStore(pooled, "distributed_lock", Duration.ofSeconds(10));
    }
}
