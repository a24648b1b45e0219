package io.fencepost.lock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.Registration;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.RenewRequest;
import io.fencepost.lock.spi.WaiterRelay;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A registered waiter whose attempt finds that a release already handed it the key (the release's message did not
 * reach it first) holds a lease that began before that attempt: the engine must count it from the attempt that last
 * found the key busy, or the holder would believe in it after it ended. The store here is a stand-in: the subject is
 * the engine's reckoning, and the store never confirms a renewal, as during an outage.
 */
class HandedBeforeItAskedTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    @Test
    void aLeaseFoundHandedOverCountsFromTheAttemptThatFoundTheKeyBusy() {
        HandedMeanwhile store = new HandedMeanwhile();
        DefaultLockManager locks = DefaultLockManager.builder(store)
                .pushFallback(Duration.ofMillis(500))
                .build();
        try {
            Lease lease = locks.acquire(
                    "k",
                    LockOptions.builder()
                            .leaseTime(LEASE)
                            .waitTime(Duration.ofSeconds(10))
                            .build());
            assertThat(store.registeringAttempts).hasValue(2);

            // The lease was handed over after the busy attempt arrived, and lasts LEASE from then at most.
            long endsBy = store.busyAttemptArrivedNanos + LEASE.toNanos();
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(5))
                    .until(() -> System.nanoTime() - endsBy >= 0);
            assertThat(lease.isHeld())
                    .as(
                            "held %d ms after the second attempt was answered",
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - store.grantAnsweredNanos))
                    .isFalse();
        } finally {
            locks.close();
        }
    }

    /**
     * Busy to a plain attempt and to the first registering one; to the next registering attempt, the key was handed to
     * the waiter's registration meanwhile, and its message never arrives. Renewals fail.
     */
    private static final class HandedMeanwhile implements LeaseStore, WaiterRelay {

        final AtomicInteger registeringAttempts = new AtomicInteger();

        volatile long busyAttemptArrivedNanos;

        volatile long grantAnsweredNanos;

        @Override
        public AcquireResult acquire(AcquireRequest request) {
            return AcquireResult.Busy.forAtMost(Duration.ofMinutes(1));
        }

        @Override
        public AcquireResult acquireOrRegister(AcquireRequest request, Registration registration) {
            if (registeringAttempts.incrementAndGet() == 1) {
                busyAttemptArrivedNanos = System.nanoTime();
                return AcquireResult.Busy.forAtMost(Duration.ofMinutes(1));
            }
            Instant now = Instant.now();
            grantAnsweredNanos = System.nanoTime();
            Duration since = Duration.ofNanos(grantAnsweredNanos - busyAttemptArrivedNanos);
            return new AcquireResult.Granted(
                    7, now.minus(since), now.minus(since).plus(LEASE));
        }

        @Override
        public Subscription onHandOver(
                Registration registration, String ownerToken, Consumer<AcquireResult.Granted> handedOver) {
            return delivering();
        }

        @Override
        public boolean withdraw(Registration registration, String ownerToken) {
            return false;
        }

        @Override
        public Map<RenewRequest, Instant> renew(Collection<RenewRequest> requests) {
            throw new LockStoreException("the store is unreachable");
        }

        @Override
        public boolean release(ReleaseRequest request) {
            return true;
        }

        @Override
        public boolean forceRelease(String key) {
            return false;
        }

        @Override
        public Optional<LeaseInfo> inspect(String key) {
            return Optional.empty();
        }

        @Override
        public Subscription subscribe(String key, Runnable wakeUp) {
            return delivering();
        }

        private static Subscription delivering() {
            return new Subscription() {
                @Override
                public boolean delivers() {
                    return true;
                }

                @Override
                public void close() {}
            };
        }
    }
}
