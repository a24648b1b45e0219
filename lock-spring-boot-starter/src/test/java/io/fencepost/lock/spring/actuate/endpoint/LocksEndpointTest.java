package io.fencepost.lock.spring.actuate.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class LocksEndpointTest {

    private final InMemoryLeaseStore store = new InMemoryLeaseStore();

    @Test
    void aGrantTheStoreMadeToThisInstanceIsHeldByItBeforeTheManagerHasRecordedIt() {
        try (DefaultLockManager here =
                DefaultLockManager.builder(store).holderName("here").build()) {
            // The store's side of a grant to this instance that its manager has not recorded yet (a hand-over or an
            // acquire on its way back): what the endpoint sees while the key changes hands.
            AcquireResult result = store.acquire(
                    new AcquireRequest("k", UUID.randomUUID().toString(), "here", Duration.ofSeconds(30), false));
            assertThat(result).isInstanceOf(AcquireResult.Granted.class);

            assertThat(new LocksEndpoint(here, false).lock("k").heldByThisInstance())
                    .isTrue();
        }
    }

    @Test
    void aKeyAnotherInstanceHoldsIsNotHeldByThisOne() {
        try (DefaultLockManager here =
                        DefaultLockManager.builder(store).holderName("here").build();
                DefaultLockManager there =
                        DefaultLockManager.builder(store).holderName("there").build()) {
            Lease theirs = there.acquire("k", LockOptions.of(Duration.ofSeconds(30)));
            Lease mine = here.acquire("mine", LockOptions.of(Duration.ofSeconds(30)));

            LocksEndpoint endpoint = new LocksEndpoint(here, false);
            assertThat(endpoint.lock("k").heldByThisInstance()).isFalse();
            assertThat(endpoint.lock("mine").heldByThisInstance()).isTrue();
            theirs.release();
            mine.release();
        }
    }
}
