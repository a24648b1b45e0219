package io.fencepost.lock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fencepost.lock.LeaseInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link LeaseStore} must have. A store's test extends this class and supplies a fresh,
 * empty store; the same tests then run against the in-memory store and against PostgreSQL.
 */
public abstract class LeaseStoreContractTest {

    /** Long enough that it never runs out during a test by accident. */
    protected static final Duration LONG = Duration.ofMinutes(5);

    /** Short enough to wait out. */
    protected static final Duration SHORT = Duration.ofMillis(300);

    protected LeaseStore store;

    /** A fresh store with no leases; called before each test. */
    protected abstract LeaseStore createStore();

    @BeforeEach
    void setUpStore() {
        store = createStore();
    }

    protected static String token() {
        return UUID.randomUUID().toString();
    }

    protected static String key() {
        return "contract:" + UUID.randomUUID();
    }

    protected AcquireResult.Granted grant(String key, String owner, Duration leaseTime) {
        AcquireResult result = store.tryAcquire(key, owner, "contract-test", leaseTime);
        assertThat(result).isInstanceOf(AcquireResult.Granted.class);
        return (AcquireResult.Granted) result;
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

        AcquireResult second = store.tryAcquire(key, token(), "other", LONG);

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
                .until(() -> store.tryAcquire(key, token(), "b", LONG), AcquireResult.Granted.class::isInstance);

        assertThat(((AcquireResult.Granted) second).fencingToken()).isGreaterThan(first.fencingToken());
        LeaseInfo info = store.inspect(key).orElseThrow();
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
            assertThat(store.release(key, owner, Duration.ZERO)).isTrue();
            tokens.add(grant(key(), token(), LONG).fencingToken());
        }

        assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void releaseByTheOwnerFreesTheKey() {
        String key = key();
        String owner = token();
        grant(key, owner, LONG);

        assertThat(store.release(key, owner, Duration.ZERO)).isTrue();

        assertThat(store.inspect(key)).isEmpty();
        assertThat(store.tryAcquire(key, token(), "b", LONG)).isInstanceOf(AcquireResult.Granted.class);
    }

    @Test
    void releaseWithAnotherOwnersTokenChangesNothing() {
        String key = key();
        AcquireResult.Granted granted = grant(key, token(), LONG);

        assertThat(store.release(key, token(), Duration.ZERO)).isFalse();

        assertThat(store.inspect(key)).map(LeaseInfo::fencingToken).contains(granted.fencingToken());
    }

    @Test
    void aLateReleaseAfterTakeoverReturnsFalseAndLeavesTheNewHolderIntact() {
        String key = key();
        String stale = token();
        grant(key, stale, SHORT);
        String fresh = token();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> store.tryAcquire(key, fresh, "fresh", LONG) instanceof AcquireResult.Granted);
        LeaseInfo before = store.inspect(key).orElseThrow();

        assertThat(store.release(key, stale, Duration.ZERO)).isFalse();

        assertThat(store.inspect(key)).contains(before);
    }

    @Test
    void aLateRenewalAfterTakeoverIsRefusedAndLeavesTheNewHolderIntact() {
        String key = key();
        String stale = token();
        grant(key, stale, SHORT);
        String fresh = token();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> store.tryAcquire(key, fresh, "fresh", LONG) instanceof AcquireResult.Granted);
        LeaseInfo before = store.inspect(key).orElseThrow();

        Map<String, Instant> renewed = store.renew(List.of(new RenewRequest(key, stale, LONG.multipliedBy(2))));

        assertThat(renewed).isEmpty();
        assertThat(store.inspect(key)).contains(before);
    }

    @Test
    void anExpiredButNotTakenOverLeaseCannotBeRenewed() {
        String key = key();
        String owner = token();
        grant(key, owner, SHORT);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.inspect(key).isEmpty());

        assertThat(store.renew(List.of(new RenewRequest(key, owner, LONG)))).isEmpty();
        assertThat(store.inspect(key)).isEmpty();
    }

    @Test
    void renewalExtendsEveryOwnedLeaseInOneBatchAndSkipsOthers() {
        String a = key();
        String b = key();
        String c = key();
        String ownerA = token();
        String ownerB = token();
        grant(a, ownerA, SHORT);
        grant(b, ownerB, SHORT);
        grant(c, token(), SHORT);

        Map<String, Instant> renewed = store.renew(List.of(
                new RenewRequest(a, ownerA, LONG),
                new RenewRequest(b, ownerB, LONG),
                new RenewRequest(c, token(), LONG)));

        assertThat(renewed).containsOnlyKeys(a, b);
        assertThat(store.inspect(a).orElseThrow().expiresAt()).isEqualTo(renewed.get(a));
        await().atMost(Duration.ofSeconds(10)).until(() -> store.inspect(c).isEmpty());
        assertThat(store.inspect(a)).isPresent();
        assertThat(store.inspect(b)).isPresent();
    }

    @Test
    void aForcedReleaseRemovesTheLeaseWhoeverOwnsItAndItsOwnerCanNoLongerRenew() {
        String key = key();
        String owner = token();
        grant(key, owner, LONG);

        assertThat(store.forceRelease(key)).isTrue();
        assertThat(store.forceRelease(key)).isFalse();

        assertThat(store.inspect(key)).isEmpty();
        assertThat(store.renew(List.of(new RenewRequest(key, owner, LONG)))).isEmpty();
        assertThat(store.release(key, owner, Duration.ZERO)).isFalse();
        assertThat(store.tryAcquire(key, token(), "b", LONG)).isInstanceOf(AcquireResult.Granted.class);
    }

    @Test
    void aHandOverGivesTheKeyANewGrantWithAHigherTokenAndEndsTheOldOne() {
        assumeTrue(store.supportsHandOver(), "the store does not support hand-over");
        String key = key();
        String first = token();
        String next = token();
        AcquireResult.Granted old = grant(key, first, LONG);

        HandOver handed = store.handOver(key, first, next, "next-holder", SHORT.multipliedBy(100))
                .orElseThrow();

        assertThat(handed.granted().fencingToken()).isGreaterThan(old.fencingToken());
        assertThat(Duration.between(
                        handed.granted().acquiredAt(), handed.granted().expiresAt()))
                .isEqualTo(SHORT.multipliedBy(100));
        LeaseInfo info = store.inspect(key).orElseThrow();
        assertThat(info.fencingToken()).isEqualTo(handed.granted().fencingToken());
        assertThat(info.holder()).isEqualTo("next-holder");
        // The old owner token is dead: it can neither renew, nor release, nor hand over again.
        assertThat(store.renew(List.of(new RenewRequest(key, first, LONG)))).isEmpty();
        assertThat(store.release(key, first, Duration.ZERO)).isFalse();
        assertThat(store.handOver(key, first, token(), "x", LONG)).isEmpty();
        assertThat(store.tryAcquire(key, token(), "other", LONG)).isInstanceOf(AcquireResult.Busy.class);
        assertThat(store.release(key, next, Duration.ZERO)).isTrue();
        grant(key, token(), LONG);
    }

    @Test
    void aHandOverOfALeaseThatIsNoLongerOursChangesNothing() {
        assumeTrue(store.supportsHandOver(), "the store does not support hand-over");
        String released = key();
        String owner = token();
        grant(released, owner, LONG);
        store.release(released, owner, Duration.ZERO);
        assertThat(store.handOver(released, owner, token(), "x", LONG)).isEmpty();
        assertThat(store.inspect(released)).isEmpty();

        String expired = key();
        String late = token();
        grant(expired, late, SHORT);
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> store.inspect(expired).isEmpty());
        assertThat(store.handOver(expired, late, token(), "x", LONG)).isEmpty();
        AcquireResult.Granted taker = grant(expired, token(), LONG);
        assertThat(store.handOver(expired, late, token(), "x", LONG)).isEmpty();
        assertThat(store.inspect(expired).orElseThrow().fencingToken()).isEqualTo(taker.fencingToken());
    }

    @Test
    void fairModeServesTheLowestLiveTicketFirst() {
        assumeTrue(store.supportsFairness(), "store without fair mode");
        String key = key();
        String first = token();
        String second = token();
        long t1 = store.enqueue(key, first, LONG);
        long t2 = store.enqueue(key, second, LONG);
        assertThat(t2).isGreaterThan(t1);

        assertThat(store.tryAcquireFair(key, token(), "late", LONG, second, t2, LONG))
                .isInstanceOf(AcquireResult.Busy.class);
        assertThat(store.tryAcquireFair(key, token(), "barger", LONG, token(), Long.MAX_VALUE, LONG))
                .as("a caller that does not queue waits behind the queue")
                .isInstanceOf(AcquireResult.Busy.class);
        String owner = token();
        AcquireResult.Granted granted =
                (AcquireResult.Granted) store.tryAcquireFair(key, owner, "first", LONG, first, t1, LONG);
        assertThat(store.release(key, owner, Duration.ZERO)).isTrue();

        assertThat(store.tryAcquireFair(key, token(), "second", LONG, second, t2, LONG))
                .isInstanceOfSatisfying(
                        AcquireResult.Granted.class,
                        g -> assertThat(g.fencingToken()).isGreaterThan(granted.fencingToken()));
    }

    @Test
    void aLapsedTicketNoLongerBlocksTheQueueAndARefreshedOneDoes() {
        assumeTrue(store.supportsFairness(), "store without fair mode");
        String key = key();
        String deadWaiter = token();
        String liveWaiter = token();
        String lateWaiter = token();
        store.enqueue(key, deadWaiter, SHORT);
        long live = store.enqueue(key, liveWaiter, SHORT);
        long late = store.enqueue(key, lateWaiter, LONG);
        String holder = token();
        grant(key, holder, LONG);

        // The live waiter's re-checks (busy: the key is held) keep its ticket; the dead one's lapses.
        await().pollInterval(Duration.ofMillis(50))
                .during(SHORT.multipliedBy(2))
                .atMost(Duration.ofSeconds(5))
                .until(() -> store.tryAcquireFair(key, token(), "live", LONG, liveWaiter, live, SHORT)
                        instanceof AcquireResult.Busy);
        store.tryAcquireFair(key, token(), "live", LONG, liveWaiter, live, SHORT);
        store.release(key, holder, Duration.ZERO);

        assertThat(store.tryAcquireFair(key, token(), "late", LONG, lateWaiter, late, LONG))
                .as("the live waiter's refreshed ticket is still ahead")
                .isInstanceOf(AcquireResult.Busy.class);
        store.dequeue(key, live);
        assertThat(store.tryAcquireFair(key, token(), "late", LONG, lateWaiter, late, LONG))
                .isInstanceOf(AcquireResult.Granted.class);
    }

    @Test
    void anEmptyRenewalBatchRenewsNothing() {
        assertThat(store.renew(List.of())).isEmpty();
    }

    @Test
    void releaseWithMinHoldTimeKeepsTheKeyLockedUntilAcquisitionPlusMinHold() {
        String key = key();
        String owner = token();
        AcquireResult.Granted granted = grant(key, owner, LONG);

        assertThat(store.release(key, owner, Duration.ofMillis(400))).isTrue();

        LeaseInfo kept = store.inspect(key).orElseThrow();
        assertThat(kept.expiresAt()).isBeforeOrEqualTo(granted.acquiredAt().plusMillis(400));
        assertThat(store.tryAcquire(key, token(), "b", LONG)).isInstanceOf(AcquireResult.Busy.class);
        // A released lease can no longer be renewed by its former owner.
        assertThat(store.renew(List.of(new RenewRequest(key, owner, LONG)))).isEmpty();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> store.tryAcquire(key, token(), "b", LONG) instanceof AcquireResult.Granted);
    }

    @Test
    void minHoldTimeOutlastsTheCurrentLeaseWhenItIsLonger() {
        String key = key();
        String owner = token();
        AcquireResult.Granted granted = grant(key, owner, SHORT);

        assertThat(store.release(key, owner, Duration.ofSeconds(3))).isTrue();

        assertThat(store.inspect(key).orElseThrow().expiresAt())
                .isEqualTo(granted.acquiredAt().plusSeconds(3));
        await().pollDelay(SHORT.multipliedBy(2)).atMost(Duration.ofSeconds(2)).until(() -> true);
        assertThat(store.tryAcquire(key, token(), "b", LONG)).isInstanceOf(AcquireResult.Busy.class);
    }

    @Test
    void inspectShowsTheLiveLeaseAndNothingForAFreeOrExpiredKey() {
        String key = key();
        assertThat(store.inspect(key)).isEmpty();
        AcquireResult.Granted granted = grant(key, token(), SHORT);

        LeaseInfo info = store.inspect(key).orElseThrow();

        assertThat(info.key()).isEqualTo(key);
        assertThat(info.fencingToken()).isEqualTo(granted.fencingToken());
        assertThat(info.holder()).isEqualTo("contract-test");
        assertThat(info.acquiredAt()).isEqualTo(granted.acquiredAt());
        assertThat(info.expiresAt()).isEqualTo(granted.expiresAt());
        await().atMost(Duration.ofSeconds(10)).until(() -> store.inspect(key).isEmpty());
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
            assertThat(store.inspect(key)).map(LeaseInfo::key).contains(key);
            assertThat(store.release(key, owner, Duration.ZERO)).isTrue();
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
                    return store.tryAcquire(key, token(), "racer", LONG);
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
