package io.fencepost.lock.contract;

import static io.fencepost.lock.contract.StoreUnderTest.key;
import static io.fencepost.lock.contract.StoreUnderTest.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.RenewRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link LeaseStore} must have, as a JUnit 5 suite: a store's test extends this class and
 * supplies a fresh, empty store, and the same tests run against it as against the in-memory store and PostgreSQL.
 * Shared leases and permits ({@link SharedLeaseContract}, {@link PermitsContract}) are part of every store's
 * contract and run with it. A store with more abilities implements their suites too ({@link LeaseHandOverContract},
 * {@link WaiterRelayContract}).
 *
 * <pre>{@code
 * class MyLeaseStoreContractTest extends LeaseStoreContract implements LeaseHandOverContract {
 *     protected LeaseStore createStore() {
 *         return new MyLeaseStore(...);
 *     }
 * }
 * }</pre>
 */
public abstract class LeaseStoreContract implements StoreUnderTest, SharedLeaseContract, PermitsContract {

    private LeaseStore store;

    /** A fresh store with no leases; called before each test. */
    protected abstract LeaseStore createStore();

    @BeforeEach
    void setUpStore() {
        store = createStore();
    }

    @Override
    public LeaseStore store() {
        return store;
    }

    /** Grants {@code key} for a short lease, waits until another owner took it over, and returns the first owner. */
    private String takenOverAfterExpiry(String key) {
        String stale = token();
        grant(key, stale, SHORT);
        String fresh = token();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> acquire(key, fresh, "fresh", LONG) instanceof AcquireResult.Granted);
        return stale;
    }

    @Test
    void aFreeKeyIsGrantedWithALeaseOfTheRequestedLength() {
        AcquireResult.Granted granted = grant(key(), token(), LONG);

        assertThat(Duration.between(granted.acquiredAt(), granted.expiresAt())).isEqualTo(LONG);
    }

    @Test
    void aHeldKeyIsBusyForAtMostTheHoldersRemainingLease() {
        String key = key();
        grant(key, token(), LONG);

        AcquireResult second = acquire(key, token(), "other", LONG);

        assertThat(second).isInstanceOf(AcquireResult.Busy.class);
        ((AcquireResult.Busy) second)
                .remaining()
                .ifPresent(remaining -> assertThat(remaining).isPositive().isLessThanOrEqualTo(LONG));
    }

    @Test
    void anExpiredLeaseIsTakenOverWithAHigherFencingToken() {
        String key = key();
        AcquireResult.Granted first = grant(key, token(), SHORT);

        AcquireResult second = await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> acquire(key, token(), "b", LONG), AcquireResult.Granted.class::isInstance);

        assertThat(((AcquireResult.Granted) second).fencingToken()).isGreaterThan(first.fencingToken());
        LeaseInfo info = store().inspect(key).orElseThrow();
        assertThat(info.fencingToken()).isEqualTo(((AcquireResult.Granted) second).fencingToken());
        assertThat(info.holder()).isEqualTo("b");
    }

    @Test
    void fencingTokensStrictlyIncreaseAcrossGrantsAndKeys() {
        List<Long> tokens = new ArrayList<>();
        String key = key();
        for (int i = 0; i < 5; i++) {
            String owner = token();
            tokens.add(grant(key, owner, LONG).fencingToken());
            assertThat(release(key, owner, Duration.ZERO)).isTrue();
            tokens.add(grant(key(), token(), LONG).fencingToken());
        }

        assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void releaseByTheOwnerFreesTheKey() {
        String key = key();
        String owner = token();
        grant(key, owner, LONG);

        assertThat(release(key, owner, Duration.ZERO)).isTrue();

        assertThat(store().inspect(key)).isEmpty();
        assertThat(acquire(key, token(), "b", LONG)).isInstanceOf(AcquireResult.Granted.class);
    }

    @Test
    void releaseWithAnotherOwnersTokenChangesNothing() {
        String key = key();
        AcquireResult.Granted granted = grant(key, token(), LONG);

        assertThat(release(key, token(), Duration.ZERO)).isFalse();

        assertThat(store().inspect(key)).map(LeaseInfo::fencingToken).contains(granted.fencingToken());
    }

    @Test
    void aLateReleaseAfterTakeoverReturnsFalseAndLeavesTheNewHolderIntact() {
        String key = key();
        String stale = takenOverAfterExpiry(key);
        LeaseInfo before = store().inspect(key).orElseThrow();

        assertThat(release(key, stale, Duration.ZERO)).isFalse();

        assertThat(store().inspect(key)).contains(before);
    }

    @Test
    void aLateRenewalAfterTakeoverIsRefusedAndLeavesTheNewHolderIntact() {
        String key = key();
        String stale = takenOverAfterExpiry(key);
        LeaseInfo before = store().inspect(key).orElseThrow();

        Map<String, Instant> renewed = renewByKey(new RenewRequest(key, stale, LONG.multipliedBy(2)));

        assertThat(renewed).isEmpty();
        assertThat(store().inspect(key)).contains(before);
    }

    @Test
    void anExpiredButNotTakenOverLeaseCannotBeRenewed() {
        String key = key();
        String owner = token();
        grant(key, owner, SHORT);
        await().atMost(Duration.ofSeconds(10)).until(() -> store().inspect(key).isEmpty());

        assertThat(renewByKey(new RenewRequest(key, owner, LONG))).isEmpty();
        assertThat(store().inspect(key)).isEmpty();
    }

    @Test
    void renewalExtendsEveryOwnedLeaseInOneBatchAndSkipsOthers() {
        String takenOver = key();
        String stale = takenOverAfterExpiry(takenOver);
        LeaseInfo thiefs = store().inspect(takenOver).orElseThrow();
        String notOurs = key();
        grant(notOurs, token(), LONG);
        LeaseInfo others = store().inspect(notOurs).orElseThrow();
        String a = key();
        String b = key();
        String c = key();
        String ownerA = token();
        String ownerB = token();
        grant(a, ownerA, SHORT);
        grant(b, ownerB, SHORT);
        grant(c, token(), SHORT);

        Map<String, Instant> renewed = renewByKey(
                new RenewRequest(a, ownerA, LONG),
                new RenewRequest(b, ownerB, Duration.ofMinutes(1)),
                new RenewRequest(c, token(), LONG),
                new RenewRequest(takenOver, stale, LONG),
                new RenewRequest(notOurs, token(), LONG));

        assertThat(renewed).containsOnlyKeys(a, b);
        assertThat(renewed.get(b)).as("each lease renewed for its own time").isBefore(renewed.get(a));
        assertThat(store().inspect(a).orElseThrow().expiresAt()).isEqualTo(renewed.get(a));
        assertThat(store().inspect(b).orElseThrow().expiresAt()).isEqualTo(renewed.get(b));
        assertThat(store().inspect(takenOver)).contains(thiefs);
        assertThat(store().inspect(notOurs)).contains(others);
        await().atMost(Duration.ofSeconds(10)).until(() -> store().inspect(c).isEmpty());
        assertThat(store().inspect(a)).isPresent();
        assertThat(store().inspect(b)).isPresent();
    }

    @Test
    void aForcedReleaseRemovesTheLeaseWhoeverOwnsItAndItsOwnerCanNoLongerRenew() {
        String key = key();
        String owner = token();
        grant(key, owner, LONG);

        assertThat(store().forceRelease(key)).isTrue();
        assertThat(store().forceRelease(key)).isFalse();

        assertThat(store().inspect(key)).isEmpty();
        assertThat(renewByKey(new RenewRequest(key, owner, LONG))).isEmpty();
        assertThat(release(key, owner, Duration.ZERO)).isFalse();
        assertThat(acquire(key, token(), "b", LONG)).isInstanceOf(AcquireResult.Granted.class);
    }

    @Test
    void renewalMovesTheEndOfALeaseEarlierTooButNeverBeforeItsMinimumHold() {
        String key = key();
        String owner = token();
        AcquireResult.Granted granted = grant(key, owner, LONG);

        Instant shortened = renewByKey(new RenewRequest(key, owner, SHORT, Duration.ZERO, LeaseMode.EXCLUSIVE))
                .get(key);
        Instant floored = renewByKey(new RenewRequest(key, owner, SHORT, Duration.ofMinutes(2), LeaseMode.EXCLUSIVE))
                .get(key);

        assertThat(shortened).isBefore(granted.expiresAt());
        assertThat(floored).isEqualTo(granted.acquiredAt().plus(Duration.ofMinutes(2)));
        assertThat(store().inspect(key).orElseThrow().expiresAt()).isEqualTo(floored);
    }

    @Test
    void anEmptyRenewalBatchRenewsNothing() {
        assertThat(renewByKey()).isEmpty();
    }

    @Test
    void releaseWithMinHoldTimeKeepsTheKeyLockedUntilAcquisitionPlusMinHold() {
        String key = key();
        String owner = token();
        AcquireResult.Granted granted = grantAndReleaseKeeping(key, owner, LONG, Duration.ofMillis(400));

        LeaseInfo kept = store().inspect(key).orElseThrow();
        assertThat(kept.expiresAt()).isBeforeOrEqualTo(granted.acquiredAt().plusMillis(400));
        assertThat(acquire(key, token(), "b", LONG)).isInstanceOf(AcquireResult.Busy.class);
        // A released lease can no longer be renewed by its former owner.
        assertThat(renewByKey(new RenewRequest(key, owner, LONG))).isEmpty();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> acquire(key, token(), "b", LONG) instanceof AcquireResult.Granted);
    }

    @Test
    void minHoldTimeOutlastsTheCurrentLeaseWhenItIsLonger() {
        String key = key();
        AcquireResult.Granted granted = grantAndReleaseKeeping(key, token(), SHORT, Duration.ofSeconds(3));

        assertThat(store().inspect(key).orElseThrow().expiresAt())
                .isEqualTo(granted.acquiredAt().plusSeconds(3));
        // Past the lease time it would have had, the key stays locked until the minimum hold ends.
        await().during(SHORT.multipliedBy(2))
                .atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> acquire(key, token(), "b", LONG) instanceof AcquireResult.Busy);
    }

    /** Grants {@code key} to {@code owner} and releases it keeping {@code minHoldTime}; returns the grant. */
    private AcquireResult.Granted grantAndReleaseKeeping(
            String key, String owner, Duration leaseTime, Duration minHoldTime) {
        AcquireResult.Granted granted = grant(key, owner, leaseTime);
        assertThat(release(key, owner, minHoldTime)).isTrue();
        return granted;
    }

    @Test
    void inspectShowsTheLiveLeaseAndNothingForAFreeOrExpiredKey() {
        String key = key();
        assertThat(store().inspect(key)).isEmpty();
        AcquireResult.Granted granted = grant(key, token(), SHORT);

        LeaseInfo info = store().inspect(key).orElseThrow();

        assertThat(info.key()).isEqualTo(key);
        assertThat(info.fencingToken()).isEqualTo(granted.fencingToken());
        assertThat(info.holder()).isEqualTo("contract-test");
        assertThat(info.acquiredAt()).isEqualTo(granted.acquiredAt());
        assertThat(info.expiresAt()).isEqualTo(granted.expiresAt());
        await().atMost(Duration.ofSeconds(10)).until(() -> store().inspect(key).isEmpty());
    }

    @Test
    void keysAreStoredExactlyAsGiven() {
        for (String key : List.of(
                "quote'key",
                "'; DROP TABLE distributed_lock; --",
                "back\\slash %_ wildcard",
                "ключ-鍵-🔒".repeat(20),
                "x".repeat(255))) {
            String owner = token();
            grant(key, owner, LONG);
            assertThat(store().inspect(key)).map(LeaseInfo::key).contains(key);
            assertThat(release(key, owner, Duration.ZERO)).isTrue();
        }
    }

    @Test
    void racingAttemptsOnOneKeyGrantExactlyOne() throws Exception {
        String key = key();
        int threads = 16;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<AcquireResult>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                results.add(pool.submit(() -> {
                    start.await();
                    return acquire(key, token(), "racer", LONG);
                }));
            }
            start.countDown();
            int granted = 0;
            for (Future<AcquireResult> result : results) {
                if (result.get(30, TimeUnit.SECONDS) instanceof AcquireResult.Granted) {
                    granted++;
                }
            }
            assertThat(granted).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }
}
