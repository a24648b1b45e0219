package io.fencepost.lock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.core.DefaultLockManager;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInfo;

/**
 * ShedLock's published provider suite (provider, extensible-provider and fuzz tests) on a {@link FencepostLockProvider},
 * checked against the manager's own view of the store. A subclass says which manager; each subclass gets one manager
 * and provider, opened by its first test and closed after its last.
 */
abstract class FencepostShedLockSuite extends AbstractExtensibleLockProviderIntegrationTest {

    /**
     * By suite class. The suite's tests are instances of their own (each has its own lock names), so the manager is
     * kept here rather than in a field of the test.
     */
    private static final Map<Class<?>, Locks> OPEN = new ConcurrentHashMap<>();

    /** A new lock manager for the suite, on the store under test. */
    protected abstract DefaultLockManager newManager();

    @AfterAll
    static void closeLocks(TestInfo suite) {
        Locks locks = OPEN.remove(suite.getTestClass().orElseThrow());
        if (locks != null) {
            locks.manager().close();
        }
    }

    private Locks locks() {
        return OPEN.computeIfAbsent(getClass(), suite -> {
            DefaultLockManager manager = newManager();
            return new Locks(manager, new FencepostLockProvider(manager));
        });
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return locks().provider();
    }

    @Override
    protected void assertUnlocked(String name) {
        assertThat(locks().manager().inspect(name))
                .as("lock '%s' in the store", name)
                .isEmpty();
    }

    @Override
    protected void assertLocked(String name) {
        assertThat(locks().manager().inspect(name))
                .as("lock '%s' in the store", name)
                .isPresent();
    }

    private record Locks(DefaultLockManager manager, FencepostLockProvider provider) {}
}
