package io.fencepost.lock.core;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a caller reads when a key is busy: "busy" for one attempt, the wait time as people write it otherwise. */
class LockNotAcquiredMessageTest {

    private final InMemoryLeaseStore store = new InMemoryLeaseStore();

    @Test
    void oneAttemptOnABusyKeySaysBusyWithoutTheAttemptsDuration() {
        try (DefaultLockManager holder = DefaultLockManager.builder(store).build();
                DefaultLockManager other = DefaultLockManager.builder(store).build();
                Lease held = holder.acquire("invoice:42", LockOptions.defaults())) {
            assertThatThrownBy(() -> other.acquire("invoice:42", LockOptions.defaults()))
                    .isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageStartingWith("lock 'invoice:42' is busy: another owner holds it (one attempt")
                    .hasMessageNotContaining("PT");
        }
    }

    @Test
    void aWaitOnABusyKeyNamesTheWaitTimeReadably() {
        try (DefaultLockManager holder = DefaultLockManager.builder(store).build();
                DefaultLockManager other = DefaultLockManager.builder(store).build();
                Lease held = holder.acquire("invoice:42", LockOptions.defaults())) {
            LockOptions wait =
                    LockOptions.builder().waitTime(Duration.ofMillis(50)).build();
            assertThatThrownBy(() -> other.acquire("invoice:42", wait))
                    .isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining("for the whole wait time of 50 ms")
                    .hasMessageNotContaining("PT");
        }
    }
}
