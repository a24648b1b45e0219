package io.fencepost.lock.shedlock;

import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.memory.InMemoryLeaseStore;

/** ShedLock's published provider suite (provider, extensible-provider and fuzz tests) on the in-memory store. */
class InMemoryShedLockSuiteTest extends FencepostShedLockSuite {

    @Override
    protected DefaultLockManager newManager() {
        return DefaultLockManager.builder(new InMemoryLeaseStore()).build();
    }
}
