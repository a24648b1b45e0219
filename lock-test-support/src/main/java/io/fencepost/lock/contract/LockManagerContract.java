package io.fencepost.lock.contract;

import io.fencepost.lock.LockManager;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.spi.LeaseStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The lock manager's contract on a store: lease extension, non-reentrant holds, shared leases and permits, leader
 * election, a hot key shared by several managers, run with real threads and several managers on the store under test. A store author extends this class and creates the store;
 * the contract runs Fencepost's engine ({@link DefaultLockManager}) on it.
 */
public abstract class LockManagerContract
        implements ExtendContract, SharedAndPermitsContract, LeaderElectionContract, HotKeyContract {

    private final List<AutoCloseable> closeAfterTest = new ArrayList<>();

    private LeaseStore store;

    /** A fresh store for one test. */
    protected abstract LeaseStore createStore();

    @BeforeEach
    void openStore() {
        store = createStore();
    }

    @AfterEach
    void closeManagersAndStore() throws Exception {
        for (int i = closeAfterTest.size() - 1; i >= 0; i--) {
            closeAfterTest.get(i).close();
        }
        closeAfterTest.clear();
        if (store instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    @Override
    public final LeaseStore store() {
        return store;
    }

    @Override
    public void closeAfterTest(AutoCloseable closeable) {
        closeAfterTest.add(closeable);
    }

    @Override
    public LockManager manager() {
        DefaultLockManager manager = DefaultLockManager.builder(store).build();
        closeAfterTest.add(manager);
        return manager;
    }
}
