package io.fencepost.lock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.fencepost.lock.LockOptions;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/** Under JUnit's parallel execution, tests that run at the same moment each have their own store. */
class TestLocksParallelTest {

    @Test
    void twoTestsRunningAtOnceEachTakeTheSameKeyOnTheirOwnStore() {
        TwoTestsAtOnce.bothRunning = new CountDownLatch(2);
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(TwoTestsAtOnce.class))
                .configurationParameter("junit.jupiter.execution.parallel.enabled", "true")
                .configurationParameter("junit.jupiter.execution.parallel.config.strategy", "fixed")
                .configurationParameter("junit.jupiter.execution.parallel.config.fixed.parallelism", "2")
                .build();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();

        LauncherFactory.create().execute(request, listener);

        TestExecutionSummary summary = listener.getSummary();
        assertThat(summary.getFailures())
                .as("failures of the parallel tests")
                .extracting(failure -> failure.getException().toString())
                .isEmpty();
        assertThat(summary.getTestsSucceededCount()).isEqualTo(2);
    }

    /** Run only by the launcher above (surefire leaves nested classes alone). */
    @ExtendWith(TestLocksExtension.class)
    @Execution(ExecutionMode.CONCURRENT)
    static class TwoTestsAtOnce {

        static CountDownLatch bothRunning;

        @Test
        void first(TestLocks locks) throws InterruptedException {
            holdTheKeyWhileTheOtherTestDoes(locks);
        }

        @Test
        void second(TestLocks locks) throws InterruptedException {
            holdTheKeyWhileTheOtherTestDoes(locks);
        }

        private static void holdTheKeyWhileTheOtherTestDoes(TestLocks locks) throws InterruptedException {
            assertThat(locks.manager().tryAcquire("shared-key", LockOptions.of(Duration.ofMinutes(1))))
                    .isPresent();
            bothRunning.countDown();
            assertThat(bothRunning.await(10, TimeUnit.SECONDS))
                    .as("both tests held the key at once")
                    .isTrue();
            assertThat(locks.grants()).hasSize(1);
        }
    }
}
