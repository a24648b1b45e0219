package io.fencepost.lock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;

/** ShedLock's published provider suite (provider, extensible-provider and fuzz tests) on the in-memory store. */
class InMemoryShedLockSuiteTest extends AbstractExtensibleLockProviderIntegrationTest {

    private static final DefaultLockManager locks =
            DefaultLockManager.builder(new InMemoryLeaseStore()).build();

    private static final FencepostLockProvider provider = new FencepostLockProvider(locks);

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
