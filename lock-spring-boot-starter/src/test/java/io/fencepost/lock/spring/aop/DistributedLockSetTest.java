package io.fencepost.lock.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockContext;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.OnLocked;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.spring.autoconfigure.LockAutoConfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @DistributedLock} whose key expression yields a collection or an array: the method runs under every key of
 * the set, taken together, with each lease current; a set with a key held elsewhere is skipped or refused as one.
 */
class DistributedLockSetTest {

    private final InMemoryLeaseStore store = new InMemoryLeaseStore();

    private final DefaultLockManager elsewhere =
            DefaultLockManager.builder(store).holderName("elsewhere").build();

    private final List<DefaultLockManager> managers = new ArrayList<>(List.of(elsewhere));

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class))
            .withBean(RecordingLockManager.class, () -> new RecordingLockManager(newManager()))
            .withBean(Transfers.class);

    @AfterEach
    void closeManagers() {
        managers.forEach(DefaultLockManager::close);
    }

    private DefaultLockManager newManager() {
        DefaultLockManager manager =
                DefaultLockManager.builder(store).holderName("app").build();
        managers.add(manager);
        return manager;
    }

    @Test
    void aListOfKeysIsTakenTogetherAndEveryLeaseIsCurrentWhileTheMethodRuns() {
        contextRunner.run(context -> {
            Transfers transfers = context.getBean(Transfers.class);

            transfers.probeWith(elsewhere);

            Map<String, Long> tokens = transfers.transfer(1, 2);

            assertThat(tokens).containsOnlyKeys("acct:1", "acct:2");
            assertThat(tokens.get("acct:1")).isNotEqualTo(tokens.get("acct:2"));
            assertThat(transfers.probes())
                    .as("another instance could take a key")
                    .containsExactly(false, false);
            assertThat(store.inspect("acct:1")).as("released after the call").isEmpty();
            assertThat(store.inspect("acct:2")).isEmpty();
            assertThat(context.getBean(RecordingLockManager.class).calls())
                    .extracting(RecordingLockManager.Call::key)
                    .containsExactly("acct:1", "acct:2");
        });
    }

    @Test
    void anArrayOfKeysIsTakenTogetherToo() {
        contextRunner.run(context -> {
            assertThat(context.getBean(Transfers.class).batch(new String[] {"b", "a", "c"}))
                    .containsExactly("b", "a", "c");
        });
    }

    @Test
    void aSetWithAKeyHeldElsewhereIsSkippedOrRefusedAndNoneOfItsKeysIsTaken() {
        contextRunner.run(context -> {
            Transfers transfers = context.getBean(Transfers.class);
            Lease held = elsewhere.acquire("acct:4", LockOptions.of(Duration.ofMinutes(1)));
            try {
                assertThat(transfers.transferIfFree(3, 4)).isNull();
                assertThatExceptionOfType(LockNotAcquiredException.class)
                        .isThrownBy(() -> transfers.transfer(3, 4))
                        .withMessageContaining("acct:4");
                assertThat(store.inspect("acct:3")).isEmpty();
            } finally {
                held.release();
            }
            assertThat(transfers.calls()).isZero();
        });
    }

    @Test
    void anEmptySetOrARepeatedKeyIsRefusedBeforeTheMethodRuns() {
        contextRunner.run(context -> {
            Transfers transfers = context.getBean(Transfers.class);

            assertThatIllegalArgumentException()
                    .isThrownBy(() -> transfers.batch(new String[0]))
                    .withMessageContaining("no keys");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> transfers.transfer(5, 5))
                    .withMessageContaining("more than once");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> transfers.later(List.of("x", "y")))
                    .withMessageContaining("CompletionStage");
            assertThat(transfers.calls()).isZero();
        });
    }

    static class Transfers {

        private final AtomicInteger calls = new AtomicInteger();

        private final List<Boolean> probes = new ArrayList<>();

        private volatile DefaultLockManager other;

        /** Read through the proxy: a field read on a class proxy would see the proxy's own, unset field. */
        public int calls() {
            return calls.get();
        }

        /** Whether another instance could take each key while the method ran. */
        public List<Boolean> probes() {
            return probes;
        }

        public void probeWith(DefaultLockManager manager) {
            this.other = manager;
        }

        @DistributedLock(key = "{'acct:' + #from, 'acct:' + #to}")
        public Map<String, Long> transfer(int from, int to) {
            calls.incrementAndGet();
            String a = "acct:" + from;
            String b = "acct:" + to;
            DefaultLockManager probe = probe();
            for (String key : List.of(a, b)) {
                probes.add(probe.tryAcquire(key, LockOptions.defaults()).isPresent());
            }
            return Map.of(
                    a, LockContext.current(a).orElseThrow().fencingToken(),
                    b, LockContext.current(b).orElseThrow().fencingToken());
        }

        @DistributedLock(key = "{'acct:' + #from, 'acct:' + #to}", onLocked = OnLocked.SKIP)
        public String transferIfFree(int from, int to) {
            calls.incrementAndGet();
            return "ran";
        }

        @DistributedLock(key = "#keys")
        public List<String> batch(String[] keys) {
            calls.incrementAndGet();
            List<String> current = new ArrayList<>();
            for (String key : keys) {
                current.add(LockContext.current(key).orElseThrow().key());
            }
            return current;
        }

        @DistributedLock(key = "#keys")
        public CompletableFuture<String> later(List<String> keys) {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        private DefaultLockManager probe() {
            return other;
        }
    }
}
