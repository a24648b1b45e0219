package io.fencepost.lock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.FencingTokenRejectedException;
import io.fencepost.lock.InMemoryFencingGuard;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(TestLocksExtension.class)
class TestLocksTest {

    private static final LockOptions THIRTY_SECONDS = LockOptions.of(Duration.ofSeconds(30));

    @Test
    void anExpiredHoldersLateWriteIsRefusedOnceAnotherInstanceTookTheKeyOver(TestLocks locks) {
        InMemoryFencingGuard invoices = new InMemoryFencingGuard();
        Lease paused = locks.manager().acquire("invoice:42", THIRTY_SECONDS);

        locks.expire("invoice:42");
        try (Lease next = locks.instance("other").acquire("invoice:42", THIRTY_SECONDS)) {
            invoices.check("invoice:42", next);
            assertThat(next.fencingToken()).isGreaterThan(paused.fencingToken());
        }

        assertThat(paused.isHeld()).as("the paused holder has not been told").isTrue();
        assertThatThrownBy(() -> invoices.check("invoice:42", paused))
                .isInstanceOf(FencingTokenRejectedException.class);
        assertThat(paused.release())
                .as("its late release frees nothing of the new holder's")
                .isFalse();
    }

    @Test
    void movingTheStoresClockPastALeaseLetsAnotherInstanceTakeTheKey(TestLocks locks) {
        Lease paused = locks.manager().acquire("report", THIRTY_SECONDS);
        LockManager other = locks.instance("other");
        assertThat(other.tryAcquire("report", THIRTY_SECONDS)).isEmpty();

        locks.advanceClock(Duration.ofSeconds(31));

        assertThat(other.tryAcquire("report", THIRTY_SECONDS))
                .hasValueSatisfying(lease -> assertThat(lease.fencingToken()).isGreaterThan(paused.fencingToken()));
    }

    @Test
    void aStoreThatIsDownFailsAcquisitionClosedUntilItIsUpAgain(TestLocks locks) {
        locks.storeDown();

        assertThatThrownBy(() -> locks.manager().tryAcquire("report", THIRTY_SECONDS))
                .isInstanceOf(LockStoreException.class)
                .hasMessageContaining("storeUp()");
        assertThat(locks.inspect("report")).isEmpty();

        locks.storeUp();
        assertThat(locks.manager().tryAcquire("report", THIRTY_SECONDS)).isPresent();
    }

    @Test
    void renewalNoticesTheStoreIsDownAndTheHolderLosesItsLease(TestLocks locks) {
        Lease lease = locks.manager().acquire("report", LockOptions.of(Duration.ofMillis(300)));

        locks.storeDown();

        await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isHeld());
    }

    @Test
    void aForcedReleaseTellsTheHolderAndFreesTheKey(TestLocks locks) {
        Lease lease = locks.manager().acquire("report", THIRTY_SECONDS);

        assertThat(locks.forceRelease("report")).isTrue();

        assertThat(lease.isHeld()).isFalse();
        assertThat(locks.instance("other").tryAcquire("report", THIRTY_SECONDS)).isPresent();
    }

    @Test
    void grantsSayWhichInstanceGotWhichKeyWithWhichToken(TestLocks locks) {
        Lease first = locks.manager().acquire("a", THIRTY_SECONDS);
        first.release();
        Lease second = locks.instance("node-2").acquire("a", THIRTY_SECONDS);
        locks.manager().acquire("b", THIRTY_SECONDS);

        assertThat(locks.grants("a"))
                .containsExactly(
                        new Grant(TestLocks.DEFAULT_HOLDER, "a", first.fencingToken()),
                        new Grant("node-2", "a", second.fencingToken()));
        assertThat(locks.grants()).hasSize(3);
        assertThat(locks.inspect("a")).map(LeaseInfo::holder).hasValue("node-2");
    }

    @Test
    void twoInstancesExcludeEachOtherAlsoOnOneThread(TestLocks locks) {
        try (Lease held = locks.manager().acquire("job", THIRTY_SECONDS)) {
            assertThat(locks.instance("node-2").tryAcquire("job", THIRTY_SECONDS))
                    .isEmpty();
            try (Lease again = locks.manager().acquire("job", THIRTY_SECONDS)) {
                assertThat(again.fencingToken()).as("reentrant").isEqualTo(held.fencingToken());
            }
        }
        assertThat(locks.instance("node-2").tryAcquire("job", THIRTY_SECONDS)).isPresent();
    }

    @Test
    void theStoresAbilitiesReachTheEngineSoFairWaitingWorks(TestLocks locks) {
        Optional<Lease> fair = locks.manager()
                .tryAcquire("job", LockOptions.builder().fair(true).build());

        assertThat(fair).isPresent();
    }

    @Test
    void resetStartsOverOnTheSameManager(TestLocks locks) {
        Lease leaked = locks.manager().acquire("job", THIRTY_SECONDS);
        locks.instance("node-2").acquire("other", THIRTY_SECONDS);
        locks.storeDown();

        locks.reset();

        assertThat(leaked.isHeld()).isFalse();
        assertThat(locks.grants()).isEmpty();
        assertThat(locks.manager().tryAcquire("job", THIRTY_SECONDS)).isPresent();
        assertThat(locks.instance("node-3").tryAcquire("other", THIRTY_SECONDS)).isPresent();
    }

    @Test
    void expiringAKeyWithoutALeaseIsAMistakeNamedInTheMessage(TestLocks locks) {
        assertThatThrownBy(() -> locks.expire("nobody-holds-this"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no live lease on 'nobody-holds-this'");
    }

    @Test
    void theClockMovesOnlyOnTheInMemoryStoreItCreated() {
        try (TestLocks locks =
                TestLocks.builder().store(new InMemoryLeaseStore()).build()) {
            assertThatThrownBy(() -> locks.advanceClock(Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("expire(key)");
        }
    }
}
