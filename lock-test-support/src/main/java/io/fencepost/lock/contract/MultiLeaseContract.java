package io.fencepost.lock.contract;

import static io.fencepost.lock.contract.EngineUnderTest.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.MultiLease;
import io.fencepost.lock.spi.StoreLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link LockManager#acquireAll} on a store that takes sets of keys ({@link
 * io.fencepost.lock.spi.MultiKeyAcquire}): all keys or none, never some of them held while waiting for the others, one
 * lease and token per key, released together, and a set that is lost when any of its leases is.
 */
public interface MultiLeaseContract extends EngineUnderTest {

    private static LockOptions options(Duration waitTime) {
        return LockOptions.builder()
                .leaseTime(Duration.ofSeconds(30))
                .waitTime(waitTime)
                .build();
    }

    @Test
    default void aSetIsGrantedWholeWithOneLeasePerKeyInTheGivenOrderAndReleasedTogether() {
        LockManager locks = manager();
        List<String> keys = List.of(key(), key(), key());

        MultiLease set = locks.acquireAll(keys, options(Duration.ZERO));

        assertThat(set.isHeld()).isTrue();
        assertThat(set.leases()).extracting(Lease::key).containsExactlyElementsOf(keys);
        assertThat(set.leases()).extracting(Lease::fencingToken).doesNotHaveDuplicates();
        for (String key : keys) {
            assertThat(set.lease(key).key()).isEqualTo(key);
            assertThat(store().inspect(key).orElseThrow().fencingToken())
                    .isEqualTo(set.lease(key).fencingToken());
        }
        assertThatIllegalArgumentException()
                .isThrownBy(() -> set.lease(key()))
                .withMessageContaining("not in this set");

        assertThat(set.release()).isTrue();
        assertThat(set.isHeld()).isFalse();
        assertThat(set.release()).as("idempotent").isFalse();
        keys.forEach(key -> assertThat(store().inspect(key)).isEmpty());
    }

    @Test
    default void closingASetReleasesEveryKey() {
        LockManager locks = manager();
        List<String> keys = List.of(key(), key());
        try (MultiLease set = locks.acquireAll(keys, options(Duration.ZERO))) {
            assertThat(set.isHeld()).isTrue();
        }
        keys.forEach(key ->
                assertThat(manager().tryAcquire(key, options(Duration.ZERO))).isPresent());
    }

    @Test
    default void aSetWithAKeyHeldElsewhereIsNotAcquiredAndTakesNoneOfItsKeys() {
        LockManager holder = manager();
        LockManager other = manager();
        String free = key();
        String held = key();
        holder.acquire(held, options(Duration.ZERO));

        assertThat(other.tryAcquireAll(List.of(free, held), options(Duration.ZERO)))
                .isEmpty();
        assertThat(store().inspect(free)).isEmpty();
        assertThatThrownBy(() -> other.acquireAll(List.of(free, held), options(Duration.ofMillis(200))))
                .isInstanceOfSatisfying(
                        LockNotAcquiredException.class, e -> assertThat(e.key()).isEqualTo(held));
        assertThat(store().inspect(free)).isEmpty();
    }

    @Test
    default void aWaitingSetHoldsNoneOfItsKeysAndGetsThemAllOnceTheBusyKeyIsFree() throws Exception {
        LockManager holder = manager();
        LockManager waiter = manager();
        LockManager probe = manager();
        String free = key();
        String held = key();
        Lease busy = holder.acquire(held, options(Duration.ZERO));

        CompletableFuture<MultiLease> set = CompletableFuture.supplyAsync(
                () -> waiter.acquireAll(List.of(free, held), options(Duration.ofSeconds(20))));
        // while the set waits (it tries again and again meanwhile), its free key stays free for everybody else
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(5)).until(() -> {
            Optional<Lease> taken = probe.tryAcquire(free, options(Duration.ZERO));
            taken.ifPresent(Lease::release);
            return taken.isPresent();
        });
        assertThat(set).isNotDone();

        busy.release();

        MultiLease granted = set.get(10, TimeUnit.SECONDS);
        assertThat(granted.isHeld()).isTrue();
        assertThat(granted.lease(held).fencingToken()).isGreaterThan(busy.fencingToken());
        granted.release();
    }

    @Test
    default void releasingASetPassesEachKeyOnToItsWaiterAndFreesTheOthers() throws Exception {
        LockManager holder = manager();
        LockManager waiter = manager();
        List<String> keys = List.of(key(), key(), key());
        MultiLease set = holder.acquireAll(keys, options(Duration.ZERO));
        CompletableFuture<Lease> waiting =
                CompletableFuture.supplyAsync(() -> waiter.acquire(keys.get(1), options(Duration.ofSeconds(20))));
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !waiting.isDone());

        assertThat(set.release()).isTrue();

        Lease passedOn = waiting.get(10, TimeUnit.SECONDS);
        assertThat(passedOn.fencingToken()).isGreaterThan(set.lease(keys.get(1)).fencingToken());
        assertThat(store().inspect(keys.get(0))).isEmpty();
        assertThat(store().inspect(keys.get(2))).isEmpty();
        passedOn.release();
    }

    @Test
    default void losingOneLeaseLosesTheSetWhileTheOthersStayUntilReleased() {
        LockManager locks = manager();
        String lost = key();
        String kept = key();
        MultiLease set = locks.acquireAll(
                List.of(lost, kept),
                LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build());
        AtomicBoolean told = new AtomicBoolean();
        set.lease(lost).onLost(e -> told.set(true));

        store().forceRelease(lost);

        await().atMost(Duration.ofSeconds(10)).until(() -> !set.isHeld());
        assertThat(told).isTrue();
        assertThat(set.lease(kept).isHeld()).isTrue();
        assertThat(set.release()).as("one lease of the set was lost").isFalse();
        assertThat(store().inspect(kept)).isEmpty();
    }

    @Test
    default void renewalKeepsEveryLeaseOfTheSet() {
        LockManager locks = manager();
        List<String> keys = List.of(key(), key());
        MultiLease set = locks.acquireAll(
                keys, LockOptions.builder().leaseTime(Duration.ofMillis(600)).build());

        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5)).until(set::isHeld);

        for (Lease lease : set.leases()) {
            assertThat(store().inspect(lease.key()).orElseThrow().fencingToken())
                    .isEqualTo(lease.fencingToken());
        }
        set.release();
    }

    @Test
    default void everyKeysTokensIncreaseAcrossSingleAndSetGrants() {
        LockManager locks = manager();
        String a = key();
        String b = key();
        Lease before = locks.acquire(a, options(Duration.ZERO));
        before.release();

        MultiLease set = locks.acquireAll(List.of(b, a), options(Duration.ZERO));
        set.release();
        Lease after = locks.acquire(b, options(Duration.ZERO));

        assertThat(set.lease(a).fencingToken()).isGreaterThan(before.fencingToken());
        assertThat(after.fencingToken()).isGreaterThan(set.lease(b).fencingToken());
        after.release();
    }

    @Test
    default void aKeyTheThreadHoldsIsRefusedInASetUnlessTheOptionsAreNotReentrant() {
        LockManager locks = manager();
        String mine = key();
        String other = key();
        locks.acquire(mine, options(Duration.ZERO));

        assertThatIllegalStateException()
                .isThrownBy(() -> locks.tryAcquireAll(List.of(other, mine), options(Duration.ZERO)))
                .withMessageContaining(mine)
                .withMessageContaining("already held by this thread");
        LockOptions notReentrant =
                options(Duration.ZERO).toBuilder().reentrant(false).build();
        assertThat(locks.tryAcquireAll(List.of(other, mine), notReentrant)).isEmpty();
        assertThat(store().inspect(other)).isEmpty();
    }

    @Test
    default void badSetsAreRefusedBeforeAnyKeyIsTaken() {
        LockManager locks = manager();
        String key = key();
        LockOptions options = options(Duration.ZERO);
        List<String> tooMany = IntStream.rangeClosed(0, StoreLimits.MAX_KEYS_PER_SET)
                .mapToObj(i -> key + ":" + i)
                .toList();

        assertThatIllegalArgumentException()
                .isThrownBy(() -> locks.tryAcquireAll(List.of(), options))
                .withMessageContaining("must not be empty");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> locks.tryAcquireAll(Arrays.asList(key, null), options))
                .withMessageContaining("number 2 of the set is null");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> locks.acquireAll(List.of(key, " "), options))
                .withMessageContaining("blank");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> locks.tryAcquireAll(List.of(key, key), options))
                .withMessageContaining("more than once");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> locks.tryAcquireAll(tooMany, options))
                .withMessageContaining("at most " + StoreLimits.MAX_KEYS_PER_SET);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> locks.tryAcquireAll(
                        List.of(key), options.toBuilder().shared(true).build()))
                .withMessageContaining("exclusive leases only");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> locks.tryAcquireAll(
                        List.of(key), options.toBuilder().permits(3).build()))
                .withMessageContaining("3 permits");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> locks.tryAcquireAll(
                        List.of(key), options.toBuilder().fair(true).build()))
                .withMessageContaining("fair");
        assertThat(store().inspect(key)).isEmpty();
        assertThat(store().inspect(key + ":0")).isEmpty();
    }

    @Test
    default void overlappingSetsInAnyOrderNeverDeadlockAndNeverShareAKey() throws Exception {
        // large sets of few keys: every two sets overlap in several keys, which they lock in their acquire and release
        List<String> keys = IntStream.range(0, 10).mapToObj(i -> key()).toList();
        Duration wait = Duration.ofSeconds(3);
        ConcurrentHashMap<String, Thread> holders = new ConcurrentHashMap<>();
        AtomicInteger granted = new AtomicInteger();
        List<String> violations = Collections.synchronizedList(new ArrayList<>());

        Workers.run(List.of(manager(), manager()), 2, Duration.ofSeconds(2), (locks, random) -> {
            List<String> set = new ArrayList<>(keys);
            Collections.shuffle(set, random);
            set = set.subList(0, 2 + random.nextInt(7));
            long start = System.nanoTime();
            Optional<MultiLease> lease = locks.tryAcquireAll(set, options(wait));
            long took = System.nanoTime() - start;
            if (took > wait.plusSeconds(2).toNanos()) {
                violations.add("a call took " + Duration.ofNanos(took) + " with a wait time of " + wait);
            }
            if (lease.isPresent()) {
                granted.incrementAndGet();
                for (String key : set) {
                    Thread other = holders.putIfAbsent(key, Thread.currentThread());
                    if (other != null) {
                        violations.add(key + " held by two sets at once");
                    }
                }
                for (String key : set) {
                    holders.remove(key, Thread.currentThread());
                }
                lease.get().release();
            }
        });

        assertThat(violations).isEmpty();
        assertThat(granted).hasPositiveValue();
    }
}
