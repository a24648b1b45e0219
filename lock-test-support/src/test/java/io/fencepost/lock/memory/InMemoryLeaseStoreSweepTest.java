package io.fencepost.lock.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LockListener;
import io.fencepost.lock.spi.Registration;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.StoreLimits;
import io.fencepost.lock.spi.StoreSweeper;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The in-memory store sweeps as the PostgreSQL one does: what ended goes, what a later grant needs stays. */
class InMemoryLeaseStoreSweepTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

    private final InMemoryLeaseStore store = new InMemoryLeaseStore(clock);

    private final Map<String, AtomicInteger> swept = new ConcurrentHashMap<>();

    private final LockListener counting = new LockListener() {
        @Override
        public void swept(String kind, int removed) {
            swept.computeIfAbsent(kind, k -> new AtomicInteger()).addAndGet(removed);
        }
    };

    private AcquireResult acquire(String key, String owner, Duration leaseTime) {
        return store.acquire(new AcquireRequest(key, owner, "test@host", leaseTime, false));
    }

    private int sweptOf(String kind) {
        AtomicInteger count = swept.get(kind);
        return count == null ? 0 : count.get();
    }

    private void drain() {
        while (store.sweep(counting)) {
            // a full batch: more may be left
        }
    }

    @Test
    void keysUsedOnceAreSweptInBatchesAndLiveOnesStay() {
        int oneShot = InMemoryLeaseStore.SWEEP_BATCH * 2 + 5;
        for (int i = 0; i < oneShot; i++) {
            acquire("request:" + i, "owner-" + i, Duration.ofSeconds(10));
        }
        clock.advance(Duration.ofSeconds(11));
        assertThat(acquire("live", "live-owner", Duration.ofSeconds(10))).isInstanceOf(AcquireResult.Granted.class);

        assertThat(store.sweep(counting)).as("a full batch").isTrue();
        assertThat(sweptOf(StoreSweeper.LEASES)).isEqualTo(InMemoryLeaseStore.SWEEP_BATCH);
        drain();

        assertThat(sweptOf(StoreSweeper.LEASES)).isEqualTo(oneShot);
        assertThat(store.inspect("live")).isPresent();
        assertThat(store.sweep(counting)).isFalse();
        assertThat(sweptOf(StoreSweeper.LEASES)).isEqualTo(oneShot);
    }

    @Test
    void aMinimumHoldAndALiveRegistrationKeepTheirKeysAndLapsedRegistrationsGo() {
        acquire("report", "reporter", Duration.ofMinutes(15));
        store.release(new ReleaseRequest("report", "reporter", Duration.ofMinutes(10)));
        acquire("waited", "holder", Duration.ofSeconds(5));
        Registration waiting = new Registration("waited", "waiter-1", Duration.ofMinutes(5), false);
        store.acquireOrRegister(
                new AcquireRequest("waited", "waiter-owner", "waiter@host", Duration.ofSeconds(5), true), waiting);
        acquire("forgotten", "holder", Duration.ofSeconds(5));
        Registration gone = new Registration("forgotten", "waiter-2", Duration.ofSeconds(10), false);
        store.acquireOrRegister(
                new AcquireRequest("forgotten", "gone-owner", "gone@host", Duration.ofSeconds(5), true), gone);

        clock.advance(Duration.ofMinutes(1));
        drain();

        assertThat(store.inspect("report")).as("kept by its minimum hold").isPresent();
        assertThat(store.registeredWaiters("waited")).isOne();
        assertThat(sweptOf(StoreSweeper.REGISTRATIONS))
                .as("the lapsed registration")
                .isOne();
        assertThat(sweptOf(StoreSweeper.LEASES)).as("'forgotten' only").isOne();
    }

    @Test
    void aWaitingWriterKeepsTheKeyOfEndedReadersUntilItsPrecedenceLapses() {
        store.acquire(new AcquireRequest(
                "catalog", "reader", "reader@host", Duration.ofSeconds(1), false, LeaseMode.SHARED, 0));
        clock.advance(Duration.ofMillis(500));
        assertThat(acquire("catalog-writer-probe", "x", Duration.ofSeconds(1)))
                .isInstanceOf(AcquireResult.Granted.class);
        assertThat(store.acquire(new AcquireRequest("catalog", "writer", "writer@host", Duration.ofSeconds(5), true)))
                .isInstanceOf(AcquireResult.Busy.class);
        clock.advance(Duration.ofSeconds(1));

        drain();
        assertThat(sweptOf(StoreSweeper.LEASES))
                .as("the probe only: the writer still holds readers back")
                .isOne();
        assertThat(store.acquire(new AcquireRequest(
                        "catalog", "late-reader", "reader@host", Duration.ofSeconds(1), false, LeaseMode.SHARED, 0)))
                .as("a new reader still waits behind the writer")
                .isInstanceOf(AcquireResult.Busy.class);

        clock.advance(StoreLimits.EXCLUSIVE_PRECEDENCE);
        drain();
        assertThat(sweptOf(StoreSweeper.LEASES)).isEqualTo(2);
    }
}
