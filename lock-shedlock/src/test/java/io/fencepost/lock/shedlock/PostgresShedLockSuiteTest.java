package io.fencepost.lock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ShedLock's published provider suite (provider, extensible-provider and fuzz tests) on PostgreSQL. */
class PostgresShedLockSuiteTest extends AbstractExtensibleLockProviderIntegrationTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase(20);

    private static PostgresLockManager locks;

    private static FencepostLockProvider provider;

    @BeforeAll
    static void start() {
        locks = PostgresLockManager.create(db.dataSource());
        provider = new FencepostLockProvider(locks);
    }

    @AfterAll
    static void close() {
        provider.close();
        locks.close();
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return provider;
    }

    @Override
    protected void assertUnlocked(String name) {
        assertThat(locks.inspect(name)).as("lock '%s' in the store", name).isEmpty();
    }

    @Override
    protected void assertLocked(String name) {
        assertThat(locks.inspect(name)).as("lock '%s' in the store", name).isPresent();
    }
}
