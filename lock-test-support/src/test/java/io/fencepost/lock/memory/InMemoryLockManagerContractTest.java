package io.fencepost.lock.memory;

import io.fencepost.lock.contract.LockManagerContract;
import io.fencepost.lock.contract.MultiLeaseContract;
import io.fencepost.lock.spi.LeaseStore;

class InMemoryLockManagerContractTest extends LockManagerContract implements MultiLeaseContract {

    @Override
    protected LeaseStore createStore() {
        return new InMemoryLeaseStore();
    }
}
