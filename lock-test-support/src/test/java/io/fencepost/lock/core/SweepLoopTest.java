package io.fencepost.lock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.contract.ForwardingLeaseStore;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.spi.LockListener;
import io.fencepost.lock.spi.StoreSweeper;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The engine runs a store's sweeper on a thread of its own: reports what it removed, survives failures, stops. */
class SweepLoopTest {

    /** A store whose sweeper fails once, then removes five leases, then finds nothing. */
    static final class SweepingStore extends ForwardingLeaseStore implements StoreSweeper {

        final AtomicInteger sweeps = new AtomicInteger();

        SweepingStore() {
            super(new InMemoryLeaseStore());
        }

        @Override
        public Duration sweepInterval() {
            return Duration.ofMillis(100);
        }

        @Override
        public boolean sweep(LockListener listener) {
            int sweep = sweeps.incrementAndGet();
            if (sweep == 1) {
                throw new LockStoreException("sweep lock rows: connection refused");
            }
            if (sweep == 2) {
                listener.swept(LEASES, 5);
            }
            return false;
        }
    }

    @Test
    void theStoresSweeperRunsEveryIntervalReportsWhatItRemovedSurvivesAFailureAndStopsWithTheManager() {
        SweepingStore store = new SweepingStore();
        List<String> swept = new CopyOnWriteArrayList<>();
        LockListener listener = new LockListener() {
            @Override
            public void swept(String kind, int removed) {
                swept.add(kind + ":" + removed);
            }
        };
        long started = System.nanoTime();
        DefaultLockManager locks =
                DefaultLockManager.builder(store).listener(listener).build();

        await().atMost(Duration.ofSeconds(10)).until(() -> store.sweeps.get() >= 3);
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("three sweeps, the first one interval after the start")
                .isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(swept).containsExactly("lease:5");

        locks.close();
        int afterClose = store.sweeps.get();
        await().during(Duration.ofMillis(400))
                .atMost(Duration.ofSeconds(2))
                .until(() -> store.sweeps.get() == afterClose);
    }
}
