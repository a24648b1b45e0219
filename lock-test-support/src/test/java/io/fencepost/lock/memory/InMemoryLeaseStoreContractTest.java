package io.fencepost.lock.memory;

import io.fencepost.lock.contract.LeaseHandOverContract;
import io.fencepost.lock.contract.LeaseStoreContract;
import io.fencepost.lock.contract.LockQueueContract;
import io.fencepost.lock.contract.WaiterRelayContract;
import io.fencepost.lock.spi.LeaseStore;

class InMemoryLeaseStoreContractTest extends LeaseStoreContract
        implements LeaseHandOverContract, WaiterRelayContract, LockQueueContract {

    @Override
    protected LeaseStore createStore() {
        return new InMemoryLeaseStore();
    }
}
