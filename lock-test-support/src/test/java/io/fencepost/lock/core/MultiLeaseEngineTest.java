package io.fencepost.lock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.MultiLease;
import io.fencepost.lock.contract.ForwardingLeaseStore;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.spi.MultiAcquireRequest;
import io.fencepost.lock.spi.MultiAcquireResult;
import io.fencepost.lock.spi.MultiKeyAcquire;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.StoreLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The engine's part of sets of keys: what it refuses before the store is asked, and how it treats the store. */
class MultiLeaseEngineTest {

    /** The in-memory store with sets of keys, counting every store call of any kind. */
    static final class CountingSetStore extends ForwardingLeaseStore implements MultiKeyAcquire {

        final AtomicInteger calls = new AtomicInteger();

        final AtomicInteger setCalls = new AtomicInteger();

        volatile boolean down;

        private final InMemoryLeaseStore delegate;

        CountingSetStore(InMemoryLeaseStore delegate) {
            super(delegate);
            this.delegate = delegate;
        }

        @Override
        public MultiAcquireResult acquireAll(MultiAcquireRequest request) {
            calls.incrementAndGet();
            setCalls.incrementAndGet();
            if (down) {
                throw new LockStoreException("simulated outage");
            }
            return delegate.acquireAll(request);
        }

        @Override
        public List<Boolean> releaseAll(List<ReleaseRequest> requests) {
            calls.incrementAndGet();
            if (down) {
                throw new LockStoreException("simulated outage");
            }
            return delegate.releaseAll(requests);
        }

        @Override
        public Subscription subscribe(String key, Runnable wakeUp) {
            calls.incrementAndGet();
            return super.subscribe(key, wakeUp);
        }

        @Override
        public Optional<LeaseInfo> inspect(String key) {
            calls.incrementAndGet();
            return super.inspect(key);
        }
    }

    private final CountingSetStore store = new CountingSetStore(new InMemoryLeaseStore());

    private final DefaultLockManager locks = DefaultLockManager.builder(store).build();

    @Test
    void badSetsAndOptionsAreRefusedBeforeTheStoreIsAsked() {
        LockOptions waiting =
                LockOptions.builder().waitTime(Duration.ofSeconds(5)).build();
        List<String> tooMany = IntStream.rangeClosed(0, StoreLimits.MAX_KEYS_PER_SET)
                .mapToObj(i -> "k" + i)
                .toList();
        List<Runnable> bad = List.of(
                () -> locks.tryAcquireAll(null, waiting),
                () -> locks.tryAcquireAll(List.of(), waiting),
                () -> locks.tryAcquireAll(Arrays.asList("a", null), waiting),
                () -> locks.acquireAll(List.of("a", "b", "a"), waiting),
                () -> locks.acquireAll(List.of("a", "x".repeat(StoreLimits.MAX_KEY_LENGTH + 1)), waiting),
                () -> locks.tryAcquireAll(tooMany, waiting),
                () -> locks.tryAcquireAll(
                        List.of("a"), waiting.toBuilder().shared(true).build()),
                () -> locks.tryAcquireAll(
                        List.of("a"), waiting.toBuilder().permits(2).build()),
                () -> locks.tryAcquireAll(
                        List.of("a"), waiting.toBuilder().fair(true).build()));

        for (Runnable call : bad) {
            assertThatIllegalArgumentException().isThrownBy(call::run);
        }
        assertThat(store.calls).as("store calls").hasValue(0);
        assertThat(locks.tryAcquireAll(tooMany.subList(0, StoreLimits.MAX_KEYS_PER_SET), waiting))
                .as("exactly the limit")
                .isPresent();
    }

    @Test
    void aStoreThatCannotTakeSetsRefusesThemNamingTheStore() {
        DefaultLockManager plain = DefaultLockManager.builder(new ForwardingLeaseStore(new InMemoryLeaseStore()))
                .build();

        assertThatThrownBy(() -> plain.tryAcquireAll(List.of("a", "b"), LockOptions.defaults()))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("ForwardingLeaseStore")
                .hasMessageContaining("MultiKeyAcquire");
        assertThat(plain.tryAcquire("a", LockOptions.defaults())).isPresent();
    }

    @Test
    void aWaitingSetRetriesAStoreOutageAndFailsClosedWhenItLasts() {
        store.down = true;
        LockOptions waiting =
                LockOptions.builder().waitTime(Duration.ofMillis(300)).build();

        assertThatThrownBy(() -> locks.tryAcquireAll(List.of("a", "b"), waiting))
                .isInstanceOf(LockStoreException.class)
                .hasMessageContaining("simulated outage");
        assertThat(store.setCalls.get()).as("attempts during the wait").isGreaterThan(1);
        assertThat(locks.heldLeases()).isEmpty();
    }

    @Test
    void aSetIsOneStoreCallAndItsLeasesAreHeldLikeAnyOther() {
        Optional<MultiLease> set = locks.tryAcquireAll(
                List.of("c", "a", "b"),
                LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build());

        assertThat(set).isPresent();
        assertThat(store.setCalls).hasValue(1);
        assertThat(locks.heldLeases()).hasSize(3);
        List<String> held = new ArrayList<>();
        locks.heldLeases().forEach(info -> held.add(info.key()));
        assertThat(held).containsExactlyInAnyOrder("a", "b", "c");
        set.get().close();
        assertThat(locks.heldLeases()).isEmpty();
    }
}
