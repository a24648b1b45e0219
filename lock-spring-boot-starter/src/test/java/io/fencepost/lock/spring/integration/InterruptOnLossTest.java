package io.fencepost.lock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockContext;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spring.test.LockContextRunners;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @DistributedLock(interruptOnLoss = true)}: a method whose lease another client takes away is interrupted
 * while it runs, and only while it runs.
 */
class InterruptOnLossTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private final ApplicationContextRunner contextRunner = LockContextRunners.onDatabase(db)
            .withPropertyValues("spring.datasource.hikari.maximum-pool-size=4")
            .withBean(Worker.class);

    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopExecutor() {
        executor.shutdownNow();
    }

    @Test
    void aMethodWhoseLeaseIsForceReleasedElsewhereIsInterrupted() {
        contextRunner.run(context -> {
            Worker worker = context.getBean(Worker.class);
            Future<String> outcome = executor.submit(() -> worker.interruptible("job:1"));
            Lease lease = worker.awaitStarted();

            forceReleaseFromAnotherClient("job:1");

            assertThat(outcome.get(20, TimeUnit.SECONDS)).isEqualTo("interrupted");
            assertThat(lease.isHeld()).isFalse();
        });
    }

    @Test
    void withoutInterruptOnLossTheMethodRunsOnAndFindsItsLeaseLost() {
        contextRunner.run(context -> {
            Worker worker = context.getBean(Worker.class);
            Future<String> outcome = executor.submit(() -> worker.uninterruptible("job:2"));
            Lease lease = worker.awaitStarted();

            forceReleaseFromAnotherClient("job:2");
            await().atMost(Duration.ofSeconds(20)).until(() -> !lease.isHeld());
            worker.finish();

            assertThat(outcome.get(20, TimeUnit.SECONDS)).isEqualTo("finished, lease lost");
        });
    }

    @Test
    void aLossAfterTheMethodReturnedInterruptsNobody() {
        contextRunner.run(context -> {
            Worker worker = context.getBean(Worker.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> returned = worker.pending("job:3", work);
            Lease lease = worker.awaitStarted();

            forceReleaseFromAnotherClient("job:3");
            await().atMost(Duration.ofSeconds(20)).until(() -> !lease.isHeld());

            assertThat(Thread.interrupted())
                    .as("the calling thread, after the method returned")
                    .isFalse();
            work.complete("done");
            assertThat(returned.get(20, TimeUnit.SECONDS)).isEqualTo("done");
        });
    }

    private static void forceReleaseFromAnotherClient(String key) {
        try (PostgresLockManager operator =
                PostgresLockManager.builder(db.dataSource()).build()) {
            assertThat(operator.forceRelease(key)).isTrue();
        }
    }

    static class Worker {

        private final AtomicReference<CountDownLatch> started = new AtomicReference<>(new CountDownLatch(1));

        private final AtomicReference<Lease> lease = new AtomicReference<>();

        private final CountDownLatch finish = new CountDownLatch(1);

        @DistributedLock(key = "#key", leaseTime = "900ms", interruptOnLoss = true)
        public String interruptible(String key) {
            started();
            try {
                finish.await(60, TimeUnit.SECONDS);
                return "finished";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
        }

        @DistributedLock(key = "#key", leaseTime = "900ms")
        public String uninterruptible(String key) throws InterruptedException {
            started();
            finish.await(60, TimeUnit.SECONDS);
            return LockContext.current().orElseThrow().isHeld() ? "finished, lease held" : "finished, lease lost";
        }

        @DistributedLock(key = "#key", leaseTime = "900ms", interruptOnLoss = true)
        public CompletableFuture<String> pending(String key, CompletableFuture<String> work) {
            started();
            return work;
        }

        Lease awaitStarted() throws InterruptedException {
            assertThat(started.get().await(20, TimeUnit.SECONDS)).isTrue();
            return lease.get();
        }

        void finish() {
            finish.countDown();
        }

        private void started() {
            lease.set(LockContext.current().orElseThrow());
            started.get().countDown();
        }
    }
}
