package io.fencepost.lock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ConcurrentModificationException;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The registry's locks against {@link Lock}'s contract as Spring Integration's registries keep it, with two
 * registries on two lock managers (two processes, as far as the store can tell) on one PostgreSQL database.
 */
class FencepostLockRegistryTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase(20);

    private static PostgresLockManager locksA;

    private static PostgresLockManager locksB;

    private static FencepostLockRegistry registryA;

    private static FencepostLockRegistry registryB;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    private final String key = "orders-" + UUID.randomUUID();

    @BeforeAll
    static void start() {
        locksA = PostgresLockManager.create(db.dataSource());
        locksB = PostgresLockManager.create(db.dataSource());
        registryA = new FencepostLockRegistry(locksA, Duration.ofSeconds(10));
        registryB = new FencepostLockRegistry(locksB, Duration.ofSeconds(10));
    }

    @AfterAll
    static void close() {
        locksA.close();
        locksB.close();
    }

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void obtainGivesOneLockPerKeyAndRejectsKeysThatAreNotText() {
        assertThat(registryA.obtain(key)).isSameAs(registryA.obtain(key));
        assertThat(registryA.obtain(key)).isNotSameAs(registryA.obtain(key + "-other"));
        assertThatThrownBy(() -> registryA.obtain(42))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Integer");
        assertThatThrownBy(() -> registryA.obtain("x".repeat(256)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("256 characters");
    }

    @Test
    void theHoldingThreadReentersAndOnlyTheOutermostUnlockFreesTheKey() throws Exception {
        Lock lock = registryA.obtain(key);
        lock.lock();
        assertThat(lock.tryLock()).isTrue();
        long token = registryA.currentLease(key).orElseThrow().fencingToken();
        lock.unlock();

        assertThat(registryA.currentLease(key).orElseThrow().fencingToken()).isEqualTo(token);
        assertThat(tryLockElsewhere(registryB.obtain(key)))
                .as("held after the inner unlock")
                .isFalse();
        lock.unlock();
        assertThat(registryA.currentLease(key)).isEmpty();
        assertThat(tryLockElsewhere(registryB.obtain(key)))
                .as("free after the outer unlock")
                .isTrue();
    }

    @Test
    void anotherThreadOfTheSameRegistryWaitsForTheHolder() throws Exception {
        Lock lock = registryA.obtain(key);
        lock.lock();
        assertThat(threads.submit(() -> lock.tryLock()).get(10, TimeUnit.SECONDS))
                .as("tryLock() of another thread")
                .isFalse();

        CountDownLatch waiting = new CountDownLatch(1);
        Future<Boolean> waiter = threads.submit(() -> {
            waiting.countDown();
            boolean locked = lock.tryLock(10, TimeUnit.SECONDS);
            if (locked) {
                lock.unlock();
            }
            return locked;
        });
        waiting.await();
        lock.unlock();
        assertThat(waiter.get(15, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void tryLockWithATimeoutWaitsForAnotherProcessToUnlock() throws Exception {
        Lock elsewhere = registryB.obtain(key);
        assertThat(elsewhere.tryLock()).isTrue();
        Lock lock = registryA.obtain(key);
        assertThat(lock.tryLock(100, TimeUnit.MILLISECONDS))
                .as("while held elsewhere")
                .isFalse();

        Future<Boolean> waiter = threads.submit(() -> lock.tryLock(10, TimeUnit.SECONDS));
        elsewhere.unlock();
        assertThat(waiter.get(15, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void onlyTheHoldingThreadUnlocks() throws Exception {
        Lock lock = registryA.obtain(key);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        lock.lock();
        Future<?> otherThread = threads.submit(lock::unlock);
        assertThatThrownBy(() -> otherThread.get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalMonitorStateException.class);
        assertThat(tryLockElsewhere(registryB.obtain(key))).isFalse();
        lock.unlock();
    }

    @Test
    void lockWaitsUntilTheKeyIsFreeAndDistributedLockTakesALeaseTime() throws Exception {
        DistributedLock elsewhere = registryB.obtain(key);
        elsewhere.lock(Duration.ofSeconds(3));
        assertThat(registryB.currentLease(key).orElseThrow().expiresAt())
                .isBefore(Instant.now().plusSeconds(5));

        CountDownLatch locked = new CountDownLatch(1);
        Future<Long> waiter = threads.submit(() -> {
            DistributedLock lock = registryA.obtain(key);
            lock.lock();
            try {
                locked.countDown();
                return registryA.currentLease(key).orElseThrow().fencingToken();
            } finally {
                lock.unlock();
            }
        });
        assertThat(locked.await(200, TimeUnit.MILLISECONDS))
                .as("while held elsewhere")
                .isFalse();
        long firstToken = registryB.currentLease(key).orElseThrow().fencingToken();
        elsewhere.unlock();
        assertThat(waiter.get(15, TimeUnit.SECONDS)).isGreaterThan(firstToken);
    }

    @Test
    void lockInterruptiblyGivesUpWhenInterrupted() throws Exception {
        Lock elsewhere = registryB.obtain(key);
        elsewhere.lock();
        CountDownLatch started = new CountDownLatch(1);
        Future<?> waiter = threads.submit(() -> {
            started.countDown();
            registryA.obtain(key).lockInterruptibly();
            return null;
        });
        started.await();
        waiter.cancel(true);
        await().atMost(Duration.ofSeconds(10)).until(waiter::isDone);
        elsewhere.unlock();
        Lock lock = registryA.obtain(key);
        assertThat(lock.tryLock(5, TimeUnit.SECONDS)).as("nothing left behind").isTrue();
        lock.unlock();
    }

    @Test
    void unlockAfterTheLeaseWasTakenOverSaysSo() throws Exception {
        FencepostLockRegistry shortLeases = new FencepostLockRegistry(locksA, Duration.ofMillis(300));
        shortLeases.setMaxHoldTime(Duration.ofMillis(300)); // no renewal beyond the first lease
        Lock lock = shortLeases.obtain(key);
        lock.lock();
        Lock elsewhere = registryB.obtain(key);
        assertThat(elsewhere.tryLock(10, TimeUnit.SECONDS)).as("taken over").isTrue();

        assertThatThrownBy(lock::unlock)
                .isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining(key);
        assertThat(tryLockElsewhere(lock)).as("the key is the new holder's").isFalse();
        elsewhere.unlock();
    }

    @Test
    void aHolderThatLostItsLeaseAndFailsToRelockHoldsNothingAnyMore() throws Exception {
        // What a revoked leader initiator does: it never unlocks the hold whose lease it lost, and locks again later.
        FencepostLockRegistry shortLeases = new FencepostLockRegistry(locksA, Duration.ofMillis(300));
        shortLeases.setMaxHoldTime(Duration.ofMillis(300));
        Lock lock = shortLeases.obtain(key);
        Lock elsewhere = registryB.obtain(key);
        ExecutorService holder = Executors.newSingleThreadExecutor();
        try {
            holder.submit(lock::lock).get(10, TimeUnit.SECONDS);
            await().pollInSameThread().atMost(Duration.ofSeconds(10)).until(elsewhere::tryLock);
            assertThat(holder.submit(() -> lock.tryLock()).get(10, TimeUnit.SECONDS))
                    .as("while held elsewhere")
                    .isFalse();
            elsewhere.unlock();
            assertThat(holder.submit(() -> lock.tryLock()).get(10, TimeUnit.SECONDS))
                    .as("once free")
                    .isTrue();
            holder.submit(lock::unlock).get(10, TimeUnit.SECONDS);

            assertThat(tryLockElsewhere(elsewhere))
                    .as("free after the one unlock")
                    .isTrue();
        } finally {
            holder.shutdownNow();
        }
    }

    @Test
    void renewLockMovesTheEndOfTheHoldersLease() {
        DistributedLock lock = registryA.obtain(key);
        assertThatThrownBy(() -> registryA.renewLock(key)).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(() -> registryA.renewLock("never-obtained-" + key))
                .isInstanceOf(IllegalStateException.class);
        lock.lock();
        Lease lease = registryA.currentLease(key).orElseThrow();

        registryA.renewLock(key, Duration.ofMinutes(5));

        assertThat(lease.expiresAt()).isAfter(Instant.now().plus(Duration.ofMinutes(4)));
        lock.unlock();
    }

    @Test
    void expireUnusedOlderThanDropsFreeLocksOnly() {
        Lock held = registryA.obtain(key);
        Lock free = registryA.obtain(key + "-free");
        held.lock();

        registryA.expireUnusedOlderThan(0);

        assertThat(registryA.obtain(key)).isSameAs(held);
        assertThat(registryA.obtain(key + "-free")).isNotSameAs(free);
        held.unlock();
    }

    @Test
    void conditionsAreNotSupportedAndExecuteLockedRunsUnderTheLock() throws Exception {
        assertThatThrownBy(() -> registryA.obtain(key).newCondition())
                .isInstanceOf(UnsupportedOperationException.class);
        long token = registryA.executeLocked(
                key, () -> registryA.currentLease(key).orElseThrow().fencingToken());
        assertThat(token).isPositive();
        assertThat(registryA.currentLease(key)).isEmpty();
    }

    /** Whether another thread gets {@code lock} at once (and then gives it back). */
    private boolean tryLockElsewhere(Lock lock) throws Exception {
        return threads.submit(() -> {
                    boolean locked = lock.tryLock();
                    if (locked) {
                        lock.unlock();
                    }
                    return locked;
                })
                .get(10, TimeUnit.SECONDS);
    }
}
