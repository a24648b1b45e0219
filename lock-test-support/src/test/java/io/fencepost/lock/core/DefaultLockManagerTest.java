package io.fencepost.lock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.LockContext;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockedWorkException;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.memory.MutableClock;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DefaultLockManagerTest {

    private static final LockOptions HOLD = LockOptions.of(Duration.ofMinutes(5));

    private final InMemoryLeaseStore memory = new InMemoryLeaseStore();

    private final CountingLeaseStore store = new CountingLeaseStore(memory);

    private final RecordingListener events = new RecordingListener();

    private final List<DefaultLockManager> managers = new ArrayList<>();

    private final ExecutorService threads = Executors.newCachedThreadPool();

    private final DefaultLockManager locks = manager(store);

    private DefaultLockManager manager(io.fencepost.lock.spi.LeaseStore leaseStore) {
        DefaultLockManager manager =
                DefaultLockManager.builder(leaseStore).listener(events).build();
        managers.add(manager);
        return manager;
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        managers.forEach(DefaultLockManager::close);
    }

    @Test
    void badKeysAreRejectedBeforeTheStoreIsCalled() {
        assertThatThrownBy(() -> locks.acquire(null, HOLD))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
        assertThatThrownBy(() -> locks.acquire("  ", HOLD))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank")
                .hasMessageContaining("'  '");
        assertThatThrownBy(() -> locks.tryAcquire("k".repeat(256), HOLD))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 255 characters, was 256");
        assertThatThrownBy(() -> locks.tryAcquire("a\0b", HOLD))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NUL");
        assertThatThrownBy(() -> locks.tryAcquire("bad\uD800", HOLD))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("surrogate");
        assertThatThrownBy(() -> locks.inspect("")).isInstanceOf(IllegalArgumentException.class);
        assertThat(store.calls()).isZero();
    }

    @Test
    void badPermitsSharingAndExtensionsAreRefusedNamingTheFixBeforeTheStoreIsCalled() {
        assertThatThrownBy(() -> LockOptions.builder().permits(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits must be at least 1")
                .hasMessageContaining("was 0");
        assertThatThrownBy(() -> LockOptions.builder().permits(-3).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("was -3");
        assertThatThrownBy(() -> LockOptions.builder().shared(true).permits(3).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("both shared and one of 3 permits")
                .hasMessageContaining("drop");
        assertThatThrownBy(() -> LockOptions.builder().shared(true).fair(true).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fair mode serves exclusive leases only");
        assertThat(store.calls()).isZero();

        Lease lease = locks.acquire("extended", HOLD);
        int afterAcquire = store.calls();
        for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofMillis(-1), null}) {
            assertThatThrownBy(() -> lease.extend(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("positive duration")
                    .hasMessageContaining("'extended'");
        }
        assertThat(store.calls()).isEqualTo(afterAcquire);
        assertThat(lease.isHeld()).isTrue();
    }

    @Test
    void aKeyOf255CharactersIncludingSupplementaryCharactersIsAccepted() {
        String key = "🔒".repeat(255);

        try (Lease lease = locks.acquire(key, HOLD)) {
            assertThat(lease.key()).isEqualTo(key);
        }
    }

    @Test
    void badOptionsNameTheValue() {
        assertThatThrownBy(() -> LockOptions.of(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lease time must be positive, was PT0S");
        assertThatThrownBy(() -> LockOptions.of(Duration.ofSeconds(-1)))
                .hasMessageContaining("lease time must be positive, was PT-1S");
        assertThatThrownBy(() ->
                        LockOptions.builder().waitTime(Duration.ofMillis(-5)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wait time")
                .hasMessageContaining("PT-0.005S");
        assertThatThrownBy(() -> LockOptions.builder()
                        .leaseTime(Duration.ofSeconds(1))
                        .renew(false)
                        .minHoldTime(Duration.ofSeconds(2))
                        .build())
                .hasMessageContaining("min hold time PT2S exceeds the longest possible hold PT1S");
        assertThatThrownBy(() -> locks.acquire("k", null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void theSameThreadReentersWithTheSameTokenAndNoStoreCall() {
        Lease outer = locks.acquire("reentrant", HOLD);
        int callsAfterOuter = store.calls();

        Lease inner = locks.acquire("reentrant", HOLD);

        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        assertThat(store.calls()).isEqualTo(callsAfterOuter);
        assertThat(inner.release()).isFalse();
        assertThat(inner.isHeld()).isFalse();
        assertThat(outer.isHeld()).isTrue();
        assertThat(locks.inspect("reentrant")).isPresent();
        assertThat(inner.release()).as("release is idempotent per hold").isFalse();

        assertThat(outer.release()).isTrue();
        assertThat(locks.inspect("reentrant")).isEmpty();
    }

    @Test
    void anotherThreadOfTheSameManagerContendsWithoutCallingTheStore() throws Exception {
        Lease lease = locks.acquire("shared", HOLD);
        int calls = store.calls();

        Optional<Lease> other =
                threads.submit(() -> locks.tryAcquire("shared", HOLD)).get();

        assertThat(other).isEmpty();
        assertThat(store.calls()).isEqualTo(calls);
        lease.release();
    }

    @Test
    void anotherManagerIsAnotherClientEvenOnTheSameThread() {
        DefaultLockManager other = manager(store);
        try (Lease lease = locks.acquire("two-clients", HOLD)) {
            assertThat(other.tryAcquire("two-clients", HOLD)).isEmpty();
            assertThatThrownBy(() -> other.acquire("two-clients", HOLD))
                    .isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining("two-clients");
        }
    }

    @Test
    void aWaiterIsWokenByALocalReleaseRatherThanItsBackoff() throws Exception {
        DefaultLockManager slowPolling = DefaultLockManager.builder(store)
                .retryBackoff(Duration.ofSeconds(30), Duration.ofSeconds(30))
                .build();
        managers.add(slowPolling);
        Lease lease = slowPolling.acquire("handoff", HOLD);
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Lease> waiter = threads.submit(() -> {
            waiting.countDown();
            return slowPolling.acquire(
                    "handoff", HOLD.toBuilder().waitTime(Duration.ofMinutes(1)).build());
        });
        waiting.await();
        await().until(() -> memory.inspect("handoff").isPresent());

        lease.release();

        Lease handedOff = waiter.get(10, TimeUnit.SECONDS);
        assertThat(handedOff.fencingToken()).isGreaterThan(lease.fencingToken());
        handedOff.release();
    }

    /** Starts a thread that takes the key, records itself, and releases; returns once it waits in line. */
    private Thread lineUp(String key, String name, List<String> order, List<Long> tokens) {
        LockOptions wait = HOLD.toBuilder().waitTime(Duration.ofMinutes(1)).build();
        Thread thread = new Thread(
                () -> {
                    Lease lease = locks.acquire(key, wait);
                    order.add(name);
                    tokens.add(lease.fencingToken());
                    lease.release();
                },
                name);
        thread.start();
        await().until(() -> thread.getState() == Thread.State.TIMED_WAITING);
        return thread;
    }

    @Test
    void aReleaseHandsTheKeyToTheLocalWaitersInArrivalOrderWithOneStoreCallEach() throws Exception {
        Lease first = locks.acquire("line", HOLD);
        List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Long> tokens = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            waiters.add(lineUp("line", "w" + i, order, tokens));
        }

        first.release();
        for (Thread waiter : waiters) {
            waiter.join(TimeUnit.SECONDS.toMillis(10));
        }

        assertThat(order).containsExactly("w0", "w1", "w2", "w3");
        assertThat(tokens)
                .isSorted()
                .doesNotHaveDuplicates()
                .allSatisfy(t -> assertThat(t).isGreaterThan(first.fencingToken()));
        // Each release but the last handed the key on in one store call; only the last one freed it.
        assertThat(store.handOvers).hasValue(4);
        assertThat(store.releases).hasValue(1);
        assertThat(memory.inspect("line")).isEmpty();
    }

    @Test
    void whileOthersWaitElsewhereTheKeyLeavesTheLocalLineAfterABoundedStreak() throws Exception {
        store.othersWaiting = true;
        Lease first = locks.acquire("streak", HOLD);
        List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Long> tokens = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            waiters.add(lineUp("streak", "w" + i, order, tokens));
        }

        first.release();
        for (Thread waiter : waiters) {
            waiter.join(TimeUnit.SECONDS.toMillis(10));
        }

        assertThat(order).containsExactly("w0", "w1", "w2", "w3", "w4", "w5");
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        // Seven grants: three hand-overs (first to w0, w0 to w1, w1 to w2), then w2's real release that others
        // could win (nobody did: w3 took the key from the store after its courtesy pause), two more hand-overs
        // (w3 to w4, w4 to w5), and w5's release.
        assertThat(WaiterLine.MAX_LOCAL_STREAK).isEqualTo(3);
        assertThat(store.handOvers).hasValue(5);
        assertThat(store.releases).hasValue(2);
        // first's acquire and w3's; the head may also ask the store once while a holder is between its local
        // release and its store call (it then finds the key busy and waits on)
        assertThat(store.acquires.get()).isBetween(2, 4);
    }

    @Test
    void aWaiterThatGaveUpIsNotHandedTheKey() {
        Lease held = locks.acquire("gave-up", HOLD);
        CompletableFuture<Optional<Lease>> gaveUp = CompletableFuture.supplyAsync(
                () -> locks.tryAcquire(
                        "gave-up",
                        HOLD.toBuilder().waitTime(Duration.ofMillis(200)).build()),
                threads);
        assertThat(gaveUp.join()).isEmpty();

        held.release();

        assertThat(store.handOvers).hasValue(0);
        assertThat(store.releases).hasValue(1);
        assertThat(memory.inspect("gave-up")).isEmpty();
    }

    @Test
    void aWaiterRetriesAtTheHoldersKnownExpiryInsteadOfSleepingPastIt() throws Exception {
        DefaultLockManager holder = manager(store);
        DefaultLockManager slowPolling = DefaultLockManager.builder(store)
                .retryBackoff(Duration.ofSeconds(30), Duration.ofSeconds(30))
                .build();
        managers.add(slowPolling);
        holder.acquire(
                "expiring",
                LockOptions.builder()
                        .leaseTime(Duration.ofMillis(300))
                        .renew(false)
                        .build());

        Future<Lease> waiter = threads.submit(() -> slowPolling.acquire(
                "expiring", HOLD.toBuilder().waitTime(Duration.ofMinutes(1)).build()));

        assertThat(waiter.get(10, TimeUnit.SECONDS).isHeld()).isTrue();
    }

    @Test
    void onlyOneThreadPerKeyPollsTheStoreWhileOthersQueueLocally() throws Exception {
        DefaultLockManager holder = manager(store);
        DefaultLockManager waiters = DefaultLockManager.builder(store)
                .retryBackoff(Duration.ofMillis(20), Duration.ofMillis(20))
                .build();
        managers.add(waiters);
        Lease held = holder.acquire("queue", HOLD);
        int before = store.acquires.get();
        List<Future<Boolean>> results = new ArrayList<>();
        LockOptions wait = HOLD.toBuilder().waitTime(Duration.ofMinutes(1)).build();
        for (int i = 0; i < 8; i++) {
            results.add(threads.submit(() -> {
                try (Lease lease = waiters.acquire("queue", wait)) {
                    return lease.isHeld();
                }
            }));
        }
        // One poller at 20 ms for ~600 ms makes about 30 attempts; eight independent pollers would make ~240.
        await().pollDelay(Duration.ofMillis(600)).until(() -> true);
        int attemptsWhileHeld = store.acquires.get() - before;
        held.release();

        for (Future<Boolean> result : results) {
            assertThat(result.get(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(attemptsWhileHeld).isBetween(1, 80);
    }

    @Test
    void aFairCallerThatDoesNotWaitTakesAFreeKeyAndFindsAHeldOneBusy() {
        LockOptions fairOnce = HOLD.toBuilder().fair(true).build();

        Lease lease = manager(memory).tryAcquire("fair-once", fairOnce).orElseThrow();
        assertThat(manager(memory).tryAcquire("fair-once", fairOnce)).isEmpty();
        assertThat(memory.registeredWaiters("fair-once"))
                .as("the caller that did not wait withdrew")
                .isZero();
        lease.release();

        assertThat(manager(memory).tryAcquire("fair-once", fairOnce)).isPresent();
    }

    @Test
    void aFairCallerThatDoesNotWaitDoesNotTakeAFreeKeyPastAnOlderFairWaiter() throws Exception {
        MutableClock storeClock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        InMemoryLeaseStore clocked = new InMemoryLeaseStore(storeClock);
        // Held without an engine, so nothing renews it: the key frees when the store's clock passes its lease.
        assertThat(clocked.acquire(new io.fencepost.lock.spi.AcquireRequest(
                        "fair-free", "00000000-0000-0000-0000-000000000001", "gone", Duration.ofSeconds(30), false)))
                .isInstanceOf(io.fencepost.lock.spi.AcquireResult.Granted.class);
        LockOptions fair =
                HOLD.toBuilder().fair(true).waitTime(Duration.ofMinutes(1)).build();
        // The waiter re-checks only every minute: the key stays free, with its registration older than the try.
        DefaultLockManager patient = DefaultLockManager.builder(clocked)
                .pushFallback(Duration.ofMinutes(1))
                .build();
        managers.add(patient);
        Future<Lease> waiter = threads.submit(() -> patient.acquire("fair-free", fair));
        await().until(() -> clocked.registeredWaiters("fair-free") == 1);
        storeClock.advance(Duration.ofSeconds(31));
        assertThat(clocked.inspect("fair-free")).isEmpty();

        Optional<Lease> barger = manager(clocked)
                .tryAcquire("fair-free", HOLD.toBuilder().fair(true).build());
        barger.ifPresent(Lease::release);
        assertThat(barger).as("a fair try past the older fair waiter").isEmpty();
        assertThat(manager(clocked).tryAcquire("fair-free", HOLD))
                .as("a try that is not fair takes the free key")
                .isPresent();
        waiter.cancel(true);
    }

    @Test
    void aFairTryThatIsHandedTheKeyAsItWithdrawsHoldsIt() {
        InMemoryLeaseStore handing = new InMemoryLeaseStore();
        DefaultLockManager holder = manager(handing);
        Lease held = holder.acquire("fair-handed", HOLD);
        // The holder's release arrives between the try's registering attempt and its withdrawal.
        DefaultLockManager trying = manager(new ReleasesBeforeWithdrawal(handing, held));

        Lease lease = trying.tryAcquire(
                        "fair-handed", HOLD.toBuilder().fair(true).build())
                .orElseThrow();

        assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(lease.isHeld()).isTrue();
        assertThat(handing.inspect("fair-handed").orElseThrow().fencingToken()).isEqualTo(lease.fencingToken());
        lease.release();
        assertThat(handing.inspect("fair-handed")).isEmpty();
    }

    @Test
    void fairWaitersOfSeveralClientsAreServedInArrivalOrder() throws Exception {
        DefaultLockManager holder = manager(memory);
        List<DefaultLockManager> clients = List.of(manager(memory), manager(memory), manager(memory));
        Lease held = holder.acquire("fair", HOLD);
        LockOptions fair =
                HOLD.toBuilder().fair(true).waitTime(Duration.ofMinutes(1)).build();
        List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String name = "w" + i;
            DefaultLockManager client = clients.get(i % 3);
            waiters.add(threads.submit(() -> {
                try (Lease lease = client.acquire("fair", fair)) {
                    order.add(name);
                }
                return null;
            }));
            int queued = i + 1;
            // Arrival order is the order of the registrations made, one waiter at a time.
            await().until(() -> memory.registeredWaiters("fair") == queued);
        }

        held.release();
        for (Future<?> waiter : waiters) {
            waiter.get(10, TimeUnit.SECONDS);
        }

        assertThat(order).containsExactly("w0", "w1", "w2", "w3", "w4", "w5");
    }

    @Test
    void fairModeOnAStoreWithoutItIsRejectedBeforeTheStoreIsCalled() {
        io.fencepost.lock.spi.LeaseStore plain = new io.fencepost.lock.spi.LeaseStore() {
            @Override
            public io.fencepost.lock.spi.AcquireResult acquire(io.fencepost.lock.spi.AcquireRequest request) {
                throw new AssertionError("not called");
            }

            @Override
            public java.util.Map<io.fencepost.lock.spi.RenewRequest, Instant> renew(
                    java.util.Collection<io.fencepost.lock.spi.RenewRequest> r) {
                return java.util.Map.of();
            }

            @Override
            public boolean release(io.fencepost.lock.spi.ReleaseRequest request) {
                return false;
            }

            @Override
            public boolean forceRelease(String k) {
                return false;
            }

            @Override
            public Optional<io.fencepost.lock.LeaseInfo> inspect(String k) {
                return Optional.empty();
            }

            @Override
            public Subscription subscribe(String key, Runnable wakeUp) {
                return Subscription.NONE;
            }
        };
        DefaultLockManager locks = manager(plain);

        assertThatThrownBy(() -> locks.acquire("k", HOLD.toBuilder().fair(true).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fair");
    }

    @Test
    void aStoreFailureWhileWaitingIsRetriedAndOnlyAStoreThatStaysDownFailsTheAcquisition() throws Exception {
        DefaultLockManager holder = manager(memory);
        Lease held = holder.acquire(
                "flaky",
                LockOptions.of(Duration.ofMillis(400)).toBuilder().renew(false).build());
        store.down = true;
        Future<Lease> waiter = threads.submit(() -> locks.acquire(
                "flaky", HOLD.toBuilder().waitTime(Duration.ofSeconds(10)).build()));
        await().until(() -> store.acquires.get() >= 2);

        store.down = false;

        assertThat(waiter.get(10, TimeUnit.SECONDS).fencingToken()).isGreaterThan(held.fencingToken());
        store.down = true;
        long start = System.nanoTime();
        assertThatThrownBy(() -> locks.acquire(
                        "down",
                        HOLD.toBuilder().waitTime(Duration.ofMillis(300)).build()))
                .isInstanceOf(io.fencepost.lock.LockStoreException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        store.down = false;
    }

    @Test
    void waitingEndsAfterTheWaitTimeWithLockNotAcquired() {
        DefaultLockManager other = manager(store);
        other.acquire("busy", HOLD);
        long start = System.nanoTime();

        assertThatThrownBy(() -> locks.acquire(
                        "busy",
                        HOLD.toBuilder().waitTime(Duration.ofMillis(300)).build()))
                .isInstanceOf(LockNotAcquiredException.class);

        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isBetween(Duration.ofMillis(300), Duration.ofSeconds(5));
        assertThat(events.events).contains("notAcquired:default:busy");
    }

    @Test
    void anInterruptedWaiterGivesUpAndKeepsItsInterruptFlag() throws Exception {
        manager(store).acquire("interrupt", HOLD);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Boolean> flag = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                locks.acquire(
                        "interrupt",
                        HOLD.toBuilder().waitTime(Duration.ofMinutes(1)).build());
            } catch (Throwable e) {
                failure.set(e);
                flag.set(Thread.currentThread().isInterrupted());
            }
        });
        waiter.start();
        await().until(() -> waiter.getState() == Thread.State.TIMED_WAITING);

        waiter.interrupt();
        waiter.join(10_000);

        assertThat(failure.get()).isInstanceOf(LockNotAcquiredException.class).hasMessageContaining("interrupted");
        assertThat(flag.get()).isTrue();
    }

    @Test
    void withLockBindsTheLeaseAsCurrentAndAlwaysReleases() {
        String result = locks.withLock("work", HOLD, lease -> {
            assertThat(LockContext.current()).containsSame(lease);
            assertThat(LockContext.current("work")).containsSame(lease);
            assertThat(LockContext.current("other")).isEmpty();
            return "done:" + lease.fencingToken();
        });

        assertThat(result).startsWith("done:");
        assertThat(LockContext.current()).isEmpty();
        assertThat(locks.inspect("work")).isEmpty();

        assertThatThrownBy(() -> locks.withLock("work", HOLD, lease -> {
                    throw new IOException("disk full");
                }))
                .isInstanceOf(LockedWorkException.class)
                .hasCauseInstanceOf(IOException.class);
        assertThatThrownBy(() -> locks.withLock("work", HOLD, lease -> {
                    throw new IllegalStateException("boom");
                }))
                .isInstanceOf(IllegalStateException.class);
        assertThat(locks.inspect("work")).isEmpty();
    }

    @Test
    void renewalKeepsALeaseForManyLeaseTimes() {
        Lease lease = locks.acquire("renewed", LockOptions.of(Duration.ofMillis(300)));
        DefaultLockManager other = manager(store);

        await().during(Duration.ofMillis(1500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> lease.isHeld() && other.tryAcquire("renewed", HOLD).isEmpty());

        assertThat(store.renewCalls.get()).isGreaterThanOrEqualTo(3);
        assertThat(events.events).contains("renewed:default:renewed");
        assertThat(lease.release()).isTrue();
    }

    @Test
    void renewalStopsAtTheMaxHoldTime() {
        Lease lease = locks.acquire(
                "bounded",
                LockOptions.builder()
                        .leaseTime(Duration.ofMillis(200))
                        .maxHoldTime(Duration.ofMillis(500))
                        .build());
        DefaultLockManager other = manager(store);

        await().atMost(Duration.ofSeconds(5))
                .until(() -> other.tryAcquire("bounded", HOLD).isPresent());

        assertThat(lease.isHeld()).isFalse();
    }

    @Test
    void aLeaseWhoseThreadDiedIsNotRenewedAndIsTakenOver() throws Exception {
        Thread holder = new Thread(() -> locks.acquire("orphan", LockOptions.of(Duration.ofMillis(300))));
        holder.start();
        holder.join();
        DefaultLockManager other = manager(store);

        await().atMost(Duration.ofSeconds(5))
                .until(() -> other.tryAcquire("orphan", HOLD).isPresent());
    }

    @Test
    void aLeaseTakenOverInTheStoreIsDeclaredLostOnceAndListenersAreTold() {
        MutableClock storeClock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        InMemoryLeaseStore skewed = new InMemoryLeaseStore(storeClock);
        DefaultLockManager holder = manager(skewed);
        DefaultLockManager thief = manager(skewed);
        Lease lease = holder.acquire("stolen", LockOptions.of(Duration.ofSeconds(3)));

        storeClock.advance(Duration.ofHours(1));
        Lease theirs = thief.acquire("stolen", HOLD);

        // The renewal at a third of the lease finds the take-over; listeners hear of it after isHeld() turns false,
        // so wait for what they were told rather than for the lease's state.
        await().atMost(Duration.ofSeconds(10)).until(() -> events.events.contains("lost:default:stolen"));
        assertThat(lease.isHeld()).isFalse();
        assertThatThrownBy(lease::checkHeld)
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("expired or was taken over");
        assertThat(events.events).containsOnlyOnce("lost:default:stolen");
        assertThat(lease.release()).isFalse();
        assertThat(theirs.isHeld()).isTrue();
        assertThat(skewed.inspect("stolen")).map(info -> info.fencingToken()).contains(theirs.fencingToken());
    }

    @Test
    void lossCallbacksRunOnceAndNotAfterARelease() {
        MutableClock storeClock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        InMemoryLeaseStore skewed = new InMemoryLeaseStore(storeClock);
        DefaultLockManager holder = manager(skewed);
        Lease lost = holder.acquire("callback:lost", LockOptions.of(Duration.ofSeconds(3)));
        Lease released = holder.acquire("callback:released", LockOptions.of(Duration.ofSeconds(3)));
        List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
        lost.onLost(e -> calls.add("lost:" + e.key()));
        released.onLost(e -> calls.add("released:" + e.key()));
        released.release();

        storeClock.advance(Duration.ofHours(1));
        manager(skewed).acquire("callback:lost", HOLD);

        await().atMost(Duration.ofSeconds(5)).until(() -> !calls.isEmpty());
        lost.onLost(e -> calls.add("late:" + e.getMessage()));
        assertThat(calls).hasSize(2);
        assertThat(calls.get(0)).isEqualTo("lost:callback:lost");
        assertThat(calls.get(1)).startsWith("late:").contains("taken over");
    }

    @Test
    void aLeaseWithoutRenewalIsReportedLostWhenItsHolderRunsPastIt() {
        Lease lease = locks.acquire(
                "unrenewed",
                LockOptions.builder()
                        .leaseTime(Duration.ofMillis(300))
                        .renew(false)
                        .build());
        List<String> reasons = new java.util.concurrent.CopyOnWriteArrayList<>();
        lease.onLost(e -> reasons.add(e.getMessage()));

        await().atMost(Duration.ofSeconds(5)).until(() -> !reasons.isEmpty());

        assertThat(reasons.get(0)).contains("ran out (renewal is off)");
        assertThat(events.events).contains("lost:default:unrenewed");
        assertThat(store.renewCalls.get()).isZero();
    }

    @Test
    void aLeaseTheStoreCannotConfirmIsLostBeforeTheStoreSideExpiry() {
        // A reading that the scheduler disturbed (the check that saw the loss took longer than the bound to read
        // around it) proves nothing either way: the scenario runs again on a new key, a few times at most.
        for (int attempt = 1; ; attempt++) {
            String key = "outage-" + attempt;
            Lease lease = locks.acquire(key, LockOptions.of(Duration.ofSeconds(2)));

            store.down = true;

            // The in-memory store keeps time by the system clock: a reading of it taken right after the check that
            // found isHeld() false is no earlier than the holder gave up, and must come before the expiry the store
            // confirmed. A later look into the store would race the 1 % margin between the two.
            Optional<Instant> gaveUpBy = firstInstantNotHeld(lease, Duration.ofSeconds(5));
            await().atMost(Duration.ofSeconds(10)).until(() -> events.events.contains("lost:default:" + key));
            lease.close(); // never throws for a store outage
            store.down = false;
            if (gaveUpBy.isPresent()) {
                assertThat(gaveUpBy.get())
                        .as("the holder must learn of the loss while the store still counts the lease as live")
                        .isBefore(lease.expiresAt());
                return;
            }
            assertThat(attempt)
                    .as("attempts whose readings the scheduler disturbed")
                    .isLessThan(5);
        }
    }

    @Test
    void minHoldTimeKeepsTheKeyAfterAnEarlyRelease() {
        Lease lease = locks.acquire(
                "at-least", HOLD.toBuilder().minHoldTime(Duration.ofMillis(500)).build());
        DefaultLockManager other = manager(store);

        assertThat(lease.release()).isTrue();

        assertThat(other.tryAcquire("at-least", HOLD)).isEmpty();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> other.tryAcquire("at-least", HOLD).isPresent());
    }

    @Test
    void aLeaseReleasedFromAnotherThreadIsReleased() throws Exception {
        Lease lease = locks.acquire("async", HOLD);

        CompletableFuture<Boolean> released = CompletableFuture.supplyAsync(lease::release, threads);

        assertThat(released.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(locks.inspect("async")).isEmpty();
    }

    @Test
    void aForcedReleaseFreesTheKeyAndTheHolderLearnsItLostTheLease() {
        Lease lease = locks.acquire("stuck", LockOptions.of(Duration.ofMillis(900)));
        Lease local = locks.acquire("stuck-local", HOLD);
        DefaultLockManager operator = manager(store);

        assertThat(operator.forceRelease("stuck")).isTrue();
        assertThat(locks.forceRelease("stuck-local")).isTrue();

        assertThat(local.isHeld()).as("the same manager knows at once").isFalse();
        await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isHeld());
        assertThat(operator.tryAcquire("stuck", HOLD)).isPresent();
        assertThat(locks.heldLeases()).isEmpty();
    }

    @Test
    void leasesAndEventsNeverShowTheOwnerToken() {
        Lease lease = locks.acquire("secret", HOLD);

        assertThat(lease.toString()).contains("secret").doesNotContainPattern("[0-9a-f]{8}-[0-9a-f]{4}-");
        assertThat(locks.heldLeases()).singleElement().satisfies(info -> {
            assertThat(info.key()).isEqualTo("secret");
            assertThat(info.fencingToken()).isEqualTo(lease.fencingToken());
            assertThat(info.holdCount()).isEqualTo(1);
            assertThat(info.holderThread()).isEqualTo(Thread.currentThread().getName());
            assertThat(info.toString()).doesNotContainPattern("[0-9a-f]{8}-[0-9a-f]{4}-");
        });
        lease.release();
        assertThat(locks.heldLeases()).isEmpty();
    }

    /**
     * The first system-clock reading after {@code isHeld()} turned false: parked until shortly before the confirmed
     * expiry (to leave the CPU to the engine), then spinning.
     */
    /** The tightest bound one reading around each check of {@link #firstInstantNotHeld} may have. */
    private static final Duration TIGHT_READING = Duration.ofMillis(2);

    /**
     * A reading of the system clock no earlier than the moment {@code lease} stopped being held, taken right after the
     * check that found it so; empty when that check and its readings took longer than {@link #TIGHT_READING} (the
     * thread was descheduled among them, so the reading may be late by any amount).
     */
    private static Optional<Instant> firstInstantNotHeld(Lease lease, Duration atMost) {
        long giveUp = System.nanoTime() + atMost.toNanos();
        Instant spinFrom = lease.expiresAt().minusMillis(300);
        while (Instant.now().isBefore(spinFrom) && lease.isHeld()) {
            LockSupport.parkNanos(
                    Math.min(Duration.between(Instant.now(), spinFrom).toNanos(), 10_000_000L));
        }
        while (true) {
            long before = System.nanoTime();
            boolean held = lease.isHeld();
            Instant after = Instant.now();
            if (!held) {
                return System.nanoTime() - before <= TIGHT_READING.toNanos() ? Optional.of(after) : Optional.empty();
            }
            if (System.nanoTime() - giveUp > 0) {
                throw new AssertionError("the lease was still held after " + atMost + " without the store");
            }
            Thread.onSpinWait();
        }
    }
}
