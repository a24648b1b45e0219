package io.fencepost.lock.contract;

import static io.fencepost.lock.contract.StoreUnderTest.key;
import static io.fencepost.lock.contract.StoreUnderTest.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LockQueue;
import io.fencepost.lock.spi.ReleaseRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link LockQueue}, for a store that has that ability: a test class that extends
 * {@link LeaseStoreContract} implements this interface too, and its tests run with the others. A place is a turn to
 * ask, first come first served, never a lease: every test that takes a key takes it from the store.
 */
public interface LockQueueContract extends StoreUnderTest {

    /** How long a test waits for a place it expects at most. */
    Duration PLACE_WAIT = Duration.ofSeconds(10);

    /** How long a waiter is seen not to get a place it must not get: longer than it takes to reach the store. */
    Duration NOT_BEFORE = Duration.ofMillis(300);

    default LockQueue queue() {
        assertThat(store()).as("the store under test").isInstanceOf(LockQueue.class);
        return (LockQueue) store();
    }

    /** Enters {@code key}'s queue on a thread of its own (a place may belong to the thread that entered). */
    private CompletableFuture<Optional<LockQueue.Place>> enterLater(
            ExecutorService threads, String key, Duration timeout) {
        return CompletableFuture.supplyAsync(() -> queue().enter(key, timeout), threads);
    }

    private static LockQueue.Place placeOf(CompletableFuture<Optional<LockQueue.Place>> entered) throws Exception {
        return entered.get(PLACE_WAIT.toSeconds(), TimeUnit.SECONDS).orElseThrow();
    }

    @Test
    default void aPlaceOnAQuietKeyIsTakenAtOnceWithoutWaitingBehindAnyone() {
        LockQueue.Place place = queue().enter(key(), Duration.ofSeconds(1)).orElseThrow();
        assertThat(place.waitedBehindOthers()).isFalse();
        place.leave();
    }

    @Test
    default void aSecondWaiterGetsThePlaceWhenTheFirstLeavesItAndNotBefore() throws Exception {
        String key = key();
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            LockQueue.Place head = queue().enter(key, Duration.ofSeconds(1)).orElseThrow();
            var next = enterLater(threads, key, PLACE_WAIT);
            await().during(NOT_BEFORE).atMost(NOT_BEFORE.multipliedBy(4)).until(() -> !next.isDone());

            head.leave();
            LockQueue.Place second = placeOf(next);
            assertThat(second.waitedBehindOthers()).isTrue();
            second.leave();
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    default void aWaitEndsEmptyAfterItsTimeoutAndTheKeyCanBeQueuedForAgain() throws Exception {
        String key = key();
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            LockQueue.Place head = queue().enter(key, Duration.ofSeconds(1)).orElseThrow();
            long start = System.nanoTime();
            assertThat(enterLater(threads, key, Duration.ofMillis(200)).get(PLACE_WAIT.toSeconds(), TimeUnit.SECONDS))
                    .isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(190));

            head.leave();
            head.leave(); // idempotent: the place is given up once
            placeOf(enterLater(threads, key, Duration.ofSeconds(1))).leave();
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    default void waitersGetThePlaceInTheOrderTheyAsked() throws Exception {
        String key = key();
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            LockQueue.Place head = queue().enter(key, Duration.ofSeconds(1)).orElseThrow();
            List<CompletableFuture<Optional<LockQueue.Place>>> waiters = new ArrayList<>();
            for (int i = 0; i < 2; i++) { // with the head, three places: within the bound a store may have
                var waiter = enterLater(threads, key, PLACE_WAIT);
                // Asked a while after the one before (and still waiting): an order the store can tell.
                await().during(NOT_BEFORE).atMost(NOT_BEFORE.multipliedBy(4)).until(() -> !waiter.isDone());
                waiters.add(waiter);
            }
            LockQueue.Place place = head;
            for (int i = 0; i < waiters.size(); i++) {
                place.leave();
                place = placeOf(waiters.get(i));
                for (var later : waiters.subList(i + 1, waiters.size())) {
                    assertThat(later)
                            .as("waiter " + (i + 2) + " while waiter " + (i + 1) + " holds the place")
                            .isNotDone();
                }
            }
            place.leave();
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    default void aPlaceIsNoLeaseTheHeadStillFindsAKeyHeldElsewhereBusy() {
        String key = key();
        grant(key, token(), LONG);

        LockQueue.Place head = queue().enter(key, Duration.ofSeconds(1)).orElseThrow();
        assertThat(acquire(key, token(), "at-the-head", LONG)).isInstanceOf(AcquireResult.Busy.class);
        head.leave();
        assertThat(store().inspect(key)).isPresent();
    }

    @Test
    default void releaseAndLeaveEndsTheLeaseAndHandsTheTurnToTheNextWaiterWhoThenTakesTheKey() throws Exception {
        String key = key();
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            String owner = token();
            LockQueue.Place head = queue().enter(key, Duration.ofSeconds(1)).orElseThrow();
            AcquireResult.Granted first = grant(key, owner, LONG);
            var next = enterLater(threads, key, PLACE_WAIT);
            await().during(NOT_BEFORE).atMost(NOT_BEFORE.multipliedBy(4)).until(() -> !next.isDone());

            assertThat(head.releaseAndLeave(new ReleaseRequest(key, owner, Duration.ZERO)))
                    .isTrue();
            LockQueue.Place second = placeOf(next);
            AcquireResult.Granted handed = grant(key, token(), LONG);
            assertThat(handed.fencingToken()).isGreaterThan(first.fencingToken());
            second.leave();
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    default void releaseAndLeaveOfALeaseTakenOverRemovesNothingAndStillLeavesThePlace() throws Exception {
        String key = key();
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            String stale = token();
            LockQueue.Place head = queue().enter(key, Duration.ofSeconds(1)).orElseThrow();
            grant(key, stale, SHORT);
            await().atMost(PLACE_WAIT).until(() -> store().inspect(key).isEmpty());
            AcquireResult.Granted current = grant(key, token(), LONG);

            assertThat(head.releaseAndLeave(new ReleaseRequest(key, stale, Duration.ZERO)))
                    .isFalse();
            assertThat(store().inspect(key))
                    .get()
                    .satisfies(info -> assertThat(info.fencingToken()).isEqualTo(current.fencingToken()));
            placeOf(enterLater(threads, key, Duration.ofSeconds(1))).leave();
        } finally {
            threads.shutdownNow();
        }
    }
}
