package io.fencepost.lock.memory;

import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.LeaseStoreContractTest;

class InMemoryLeaseStoreContractTest extends LeaseStoreContractTest {

    @Override
    protected LeaseStore createStore() {
        return new InMemoryLeaseStore();
    }
}
