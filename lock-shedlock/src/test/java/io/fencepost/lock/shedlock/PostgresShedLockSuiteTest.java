package io.fencepost.lock.shedlock;

import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ShedLock's published provider suite (provider, extensible-provider and fuzz tests) on PostgreSQL. */
class PostgresShedLockSuiteTest extends FencepostShedLockSuite {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase(20);

    @Override
    protected DefaultLockManager newManager() {
        return PostgresLockManager.create(db.dataSource());
    }
}
