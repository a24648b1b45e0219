package io.fencepost.lock.memory;

import io.fencepost.lock.contract.LeaseHandOverContract;
import io.fencepost.lock.contract.LeaseStoreContract;
import io.fencepost.lock.contract.LockQueueContract;
import io.fencepost.lock.contract.MultiKeyAcquireContract;
import io.fencepost.lock.contract.WaiterRelayContract;
import io.fencepost.lock.spi.LeaseStore;
import java.util.List;

class InMemoryLeaseStoreContractTest extends LeaseStoreContract
        implements LeaseHandOverContract, WaiterRelayContract, LockQueueContract, MultiKeyAcquireContract {

    @Override
    protected LeaseStore createStore() {
        return new InMemoryLeaseStore();
    }

    @Override
    public List<Long> grantHistory(String key) {
        return ((InMemoryLeaseStore) store()).grantHistory(key);
    }
}
