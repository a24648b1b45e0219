package io.fencepost.lock.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseMode;
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
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.context.support.PropertySourcesPlaceholderConfigurer;
import org.springframework.core.PriorityOrdered;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * The advisor's behaviour on the in-memory store: what SKIP returns, THROW, keys, durations, futures, proxies and
 * start-up checks. A second lock manager on the same store stands for another instance of the application.
 */
@ExtendWith(OutputCaptureExtension.class)
class DistributedLockAdvisorTest {

    private final InMemoryLeaseStore store = new InMemoryLeaseStore();

    private final DefaultLockManager elsewhere =
            DefaultLockManager.builder(store).holderName("elsewhere").build();

    private final List<DefaultLockManager> managers = new ArrayList<>(List.of(elsewhere));

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class))
            .withBean(RecordingLockManager.class, () -> new RecordingLockManager(newManager()))
            .withBean("keys", KeyParts.class)
            .withPropertyValues("test.max-hold=2h");

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

    private Lease holdElsewhere(String key) {
        return elsewhere.acquire(key, LockOptions.of(Duration.ofMinutes(1)));
    }

    @Test
    void skipReturnsNullWithoutRunningTheMethodWhenTheKeyIsHeldElsewhere() {
        contextRunner.withBean(SkippingService.class).run(context -> {
            SkippingService service = context.getBean(SkippingService.class);
            Lease held = holdElsewhere("report");
            try {
                assertThat(service.text()).isNull();
                service.nothing();
            } finally {
                held.release();
            }
            assertThat(service.calls()).isEqualTo(0);
        });
    }

    @Test
    void fairTrueOnTheAnnotationAsksForFairOptionsAndWaitsInTheQueue() {
        contextRunner.withBean(FairService.class).run(context -> {
            FairService service = context.getBean(FairService.class);
            RecordingLockManager manager = context.getBean(RecordingLockManager.class);

            assertThat(service.run()).isEqualTo("ran");

            assertThat(manager.calls()).last().satisfies(call -> {
                assertThat(call.key()).isEqualTo("fair-job");
                assertThat(call.options().fair()).isTrue();
            });
        });
    }

    @Test
    void sharedPermitsAndReentrantOnTheAnnotationAskForThoseOptions() {
        contextRunner.withBean(KindsService.class).run(context -> {
            KindsService service = context.getBean(KindsService.class);
            RecordingLockManager manager = context.getBean(RecordingLockManager.class);

            service.read();
            service.slot();
            service.once();

            assertThat(manager.calls())
                    .extracting(call -> call.options().mode())
                    .containsExactly(LeaseMode.SHARED, LeaseMode.PERMITS, LeaseMode.EXCLUSIVE);
            assertThat(manager.calls().get(1).options().permits()).isEqualTo(3);
            assertThat(manager.calls().get(2).options().reentrant()).isFalse();
        });
    }

    @Test
    void sharedWithPermitsOrNoPermitsFailTheStartUpNamingTheMethod() {
        contextRunner
                .withBean(BadKindsService.class)
                .run(context -> assertStartupFailure(context)
                        .hasMessageContaining("@DistributedLock on BadKindsService.run()")
                        .hasMessageContaining("permits must be at least 1 (1 is an exclusive lock), was 0"));
        contextRunner
                .withBean(SharedPermitsService.class)
                .run(context -> assertStartupFailure(context)
                        .hasMessageContaining("@DistributedLock on SharedPermitsService.run()")
                        .hasMessageContaining("both shared and one of 2 permits"));
    }

    static class KindsService {

        @DistributedLock(key = "'catalog'", shared = true)
        public void read() {}

        @DistributedLock(key = "'export-slots'", permits = 3)
        public void slot() {}

        @DistributedLock(key = "'once'", reentrant = false)
        public void once() {}
    }

    static class BadKindsService {

        @DistributedLock(key = "'run'", permits = 0)
        public void run() {}
    }

    static class SharedPermitsService {

        @DistributedLock(key = "'run'", shared = true, permits = 2)
        public void run() {}
    }

    static class FairService {

        @DistributedLock(key = "'fair-job'", waitTime = "1s", fair = true)
        public String run() {
            return "ran";
        }
    }

    @Test
    void skipReturnsEmptyOptionals() {
        contextRunner.withBean(SkippingService.class).run(context -> {
            SkippingService service = context.getBean(SkippingService.class);
            Lease held = holdElsewhere("report");
            try {
                assertThat(service.optional()).isEmpty();
                assertThat(service.optionalInt()).isEmpty();
            } finally {
                held.release();
            }
            assertThat(service.calls()).isEqualTo(0);
        });
    }

    @Test
    void skipReturnsZeroForPrimitives() {
        contextRunner.withBean(SkippingService.class).run(context -> {
            SkippingService service = context.getBean(SkippingService.class);
            Lease held = holdElsewhere("report");
            try {
                assertThat(service.count()).isZero();
                assertThat(service.total()).isZero();
                assertThat(service.done()).isFalse();
                assertThat(service.ratio()).isZero();
                assertThat(service.letter()).isEqualTo('\0');
            } finally {
                held.release();
            }
            assertThat(service.calls()).isEqualTo(0);
        });
    }

    @Test
    void skipReturnsACompletedFutureOfNothingForFutureMethods() {
        contextRunner.withBean(SkippingService.class).run(context -> {
            SkippingService service = context.getBean(SkippingService.class);
            Lease held = holdElsewhere("report");
            try {
                assertThat(service.future()).isCompletedWithValue(null);
                assertThat(service.futureOfOptional()).isCompletedWithValue(Optional.empty());
            } finally {
                held.release();
            }
            assertThat(service.calls()).isEqualTo(0);
        });
    }

    @Test
    void skipRunsTheMethodWhenTheKeyIsFree() {
        contextRunner.withBean(SkippingService.class).run(context -> {
            SkippingService service = context.getBean(SkippingService.class);
            assertThat(service.text()).isEqualTo("ran");
            assertThat(service.count()).isEqualTo(42);
            assertThat(service.calls()).isEqualTo(2);
        });
    }

    @Test
    void throwRaisesLockNotAcquiredExceptionWithoutRunningTheMethod() {
        contextRunner.withBean(LockedService.class).run(context -> {
            LockedService service = context.getBean(LockedService.class);
            Lease held = holdElsewhere("invoice:7");
            try {
                assertThatExceptionOfType(LockNotAcquiredException.class)
                        .isThrownBy(() -> service.settle(7))
                        .satisfies(e -> assertThat(e.key()).isEqualTo("invoice:7"));
            } finally {
                held.release();
            }
            assertThat(service.calls()).isEqualTo(0);
        });
    }

    @Test
    void theLeaseIsCurrentInsideTheMethodAndReleasedAfterIt() {
        contextRunner.withBean(LockedService.class).run(context -> {
            LockedService service = context.getBean(LockedService.class);
            Lease inside = service.settle(42);
            assertThat(inside.key()).isEqualTo("invoice:42");
            assertThat(inside.fencingToken()).isPositive();
            assertThat(inside.isHeld()).isFalse();
            assertThat(LockContext.current()).isEmpty();
            assertThat(elsewhere.tryAcquire("invoice:42", LockOptions.defaults()))
                    .hasValueSatisfying(Lease::release);
        });
    }

    @Test
    void theLeaseIsReleasedWhenTheMethodThrows() {
        contextRunner.withBean(LockedService.class).run(context -> {
            LockedService service = context.getBean(LockedService.class);
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> service.fail(3))
                    .withMessage("boom 3");
            assertThat(elsewhere.inspect("failing:3")).isEmpty();
        });
    }

    @Test
    void aNullKeyThrowsIllegalArgumentExceptionBeforeTheMethodRuns() {
        contextRunner.withBean(LockedService.class).run(context -> {
            LockedService service = context.getBean(LockedService.class);
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> service.named(null))
                    .withMessageContaining("@DistributedLock on LockedService.named(String)")
                    .withMessageContaining("evaluated to null");
            assertThat(service.calls()).isEqualTo(0);
        });
    }

    @Test
    void aBlankKeyThrowsIllegalArgumentExceptionBeforeTheMethodRuns() {
        contextRunner.withBean(LockedService.class).run(context -> {
            LockedService service = context.getBean(LockedService.class);
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> service.named("  "))
                    .withMessageContaining("@DistributedLock on LockedService.named(String)")
                    .withMessageContaining("blank");
            assertThat(service.calls()).isEqualTo(0);
        });
    }

    @Test
    void keysSeeArgumentsByNameAndPositionTheRootObjectAndBeans() {
        contextRunner.withBean(LockedService.class).run(context -> {
            LockedService service = context.getBean(LockedService.class);
            RecordingLockManager locks = context.getBean(RecordingLockManager.class);
            service.composite("eu", 5);
            assertThat(locks.lastCall().key()).isEqualTo("composite:LockedService:svc:eu:5:suffix");
        });
    }

    @Test
    void durationsAcceptSimpleIsoAndPlaceholderForms() {
        contextRunner.withBean(LockedService.class).run(context -> {
            RecordingLockManager locks = context.getBean(RecordingLockManager.class);
            context.getBean(LockedService.class).timed();
            LockOptions options = locks.lastCall().options();
            assertThat(options.leaseTime()).isEqualTo(Duration.ofMillis(500));
            assertThat(options.waitTime()).isEqualTo(Duration.ofMinutes(1));
            assertThat(options.minHoldTime()).isEqualTo(Duration.ofMillis(100));
            assertThat(options.maxHoldTime()).isEqualTo(Duration.ofHours(2));
            assertThat(options.renew()).isFalse();
            assertThat(options.name()).isEqualTo("timed-job");
        });
    }

    @Test
    void emptyDurationsComeFromTheFencepostProperties() {
        contextRunner
                .withBean(LockedService.class)
                .withPropertyValues(
                        "fencepost.lease-time=10s", "fencepost.wait-time=250ms", "fencepost.max-hold-time=5m")
                .run(context -> {
                    RecordingLockManager locks = context.getBean(RecordingLockManager.class);
                    context.getBean(LockedService.class).settle(1);
                    LockOptions options = locks.lastCall().options();
                    assertThat(options.leaseTime()).isEqualTo(Duration.ofSeconds(10));
                    assertThat(options.waitTime()).isEqualTo(Duration.ofMillis(250));
                    assertThat(options.maxHoldTime()).isEqualTo(Duration.ofMinutes(5));
                    assertThat(options.minHoldTime()).isZero();
                    assertThat(options.renew()).isTrue();
                });
    }

    @Test
    void theDefaultNameIsClassNameDotMethod() {
        contextRunner.withBean(LockedService.class).run(context -> {
            RecordingLockManager locks = context.getBean(RecordingLockManager.class);
            context.getBean(LockedService.class).settle(1);
            assertThat(locks.lastCall().options().name()).isEqualTo("LockedService.settle");
        });
    }

    @Test
    void aFutureReturningMethodKeepsTheLeaseUntilTheFutureCompletes() {
        contextRunner.withBean(LockedService.class).run(context -> {
            LockedService service = context.getBean(LockedService.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> result = service.later(work);
            assertThat(result).isNotDone();
            assertThat(elsewhere.inspect("later")).isPresent();
            assertThat(elsewhere.tryAcquire("later", LockOptions.defaults())).isEmpty();
            work.complete("done");
            assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done");
            assertThat(elsewhere.inspect("later")).isEmpty();
        });
    }

    @Test
    void theCallingThreadDoesNotReenterALeaseHeldForItsEarlierPendingFuture() {
        contextRunner.withBean(LockedService.class).run(context -> {
            LockedService service = context.getBean(LockedService.class);
            ExecutorService caller = Executors.newSingleThreadExecutor();
            try {
                CompletableFuture<String> firstWork = new CompletableFuture<>();
                CompletableFuture<String> first =
                        caller.submit(() -> service.later(firstWork)).get(5, TimeUnit.SECONDS);

                assertThat(caller.submit(() -> service.laterOrSkip(CompletableFuture.completedFuture("second")))
                                .get(5, TimeUnit.SECONDS))
                        .as("skipped: the key is held for the first call's work")
                        .isCompletedWithValue(null);
                assertThatExceptionOfType(ExecutionException.class)
                        .isThrownBy(() -> caller.submit(() -> service.later(CompletableFuture.completedFuture("third")))
                                .get(5, TimeUnit.SECONDS))
                        .withCauseInstanceOf(LockNotAcquiredException.class)
                        .withMessageContaining("pending future of an earlier call on this thread");

                AtomicReference<Thread> callerThread = new AtomicReference<>();
                Future<CompletableFuture<String>> waiting = caller.submit(() -> {
                    callerThread.set(Thread.currentThread());
                    return service.laterOrWait(CompletableFuture.completedFuture("fourth"));
                });
                await().atMost(Duration.ofSeconds(5)).until(() -> waitsInTheInterceptor(callerThread.get()));
                assertThat(waiting).isNotDone();
                firstWork.complete("first");
                assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("first");
                assertThat(waiting.get(5, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS))
                        .isEqualTo("fourth");
                assertThat(elsewhere.inspect("later")).isEmpty();
            } finally {
                caller.shutdownNow();
            }
        });
    }

    private static boolean waitsInTheInterceptor(Thread thread) {
        if (thread == null || thread.getState() != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().equals(DistributedLockInterceptor.class.getName())
                    && frame.getMethodName().equals("awaitRelease")) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aFailedFutureAlsoReleasesTheLease() {
        contextRunner.withBean(LockedService.class).run(context -> {
            LockedService service = context.getBean(LockedService.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletionStage<String> result = service.laterStage(work);
            assertThat(elsewhere.inspect("later-stage")).isPresent();
            work.completeExceptionally(new IllegalStateException("failed"));
            assertThat(result.toCompletableFuture()).failsWithin(Duration.ofSeconds(5));
            assertThat(elsewhere.inspect("later-stage")).isEmpty();
        });
    }

    @Test
    void asyncMethodsAreLockedOnTheExecutorThreadAroundTheBody() {
        contextRunner.withUserConfiguration(AsyncConfiguration.class).run(context -> {
            AsyncService service = context.getBean(AsyncService.class);
            String caller = Thread.currentThread().getName();
            String result = service.work().get(5, TimeUnit.SECONDS);
            assertThat(result).startsWith("async-job@").doesNotEndWith("@" + caller);
            assertThat(elsewhere.inspect("async-job")).isEmpty();
        });
    }

    @Test
    void aTypeLevelAnnotationLocksEveryPublicMethod() {
        contextRunner.withBean(TypeLevelService.class).run(context -> {
            TypeLevelService service = context.getBean(TypeLevelService.class);
            RecordingLockManager locks = context.getBean(RecordingLockManager.class);
            assertThat(service.first()).isEqualTo("nightly");
            assertThat(service.second()).isEqualTo("nightly");
            assertThat(service.notPublic()).isEqualTo("unlocked");
            assertThat(locks.calls())
                    .extracting(call -> call.options().name())
                    .containsExactly("TypeLevelService.first", "TypeLevelService.second");
        });
    }

    @Test
    void interfaceBasedBeansAreLockedThroughJdkProxies() {
        contextRunner
                .withBean(Billing.class, BillingService::new)
                .withPropertyValues("spring.aop.proxy-target-class=false")
                .run(context -> {
                    Billing billing = context.getBean(Billing.class);
                    assertThat(AopUtils.isJdkDynamicProxy(billing)).isTrue();
                    assertThat(billing.bill(9)).isEqualTo("invoice:9");
                });
    }

    @Test
    void interfaceBasedBeansAreLockedThroughClassProxies() {
        contextRunner
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
                .withBean(Billing.class, BillingService::new)
                .run(context -> {
                    Billing billing = context.getBean(Billing.class);
                    assertThat(AopUtils.isCglibProxy(billing)).isTrue();
                    assertThat(billing.bill(9)).isEqualTo("invoice:9");
                });
    }

    @Test
    void theAdvisorRunsOutsideTransactionsByDefault() {
        contextRunner.run(context -> assertThat(
                        context.getBean(DistributedLockAdvisor.class).getOrder())
                .isEqualTo(DistributedLockAdvisor.DEFAULT_ORDER)
                .isLessThan(org.springframework.core.Ordered.LOWEST_PRECEDENCE));
    }

    @Test
    void theAdvisorOrderIsConfigurable() {
        contextRunner
                .withPropertyValues("fencepost.aop.order=7")
                .run(context -> assertThat(
                                context.getBean(DistributedLockAdvisor.class).getOrder())
                        .isEqualTo(7));
    }

    @Test
    void aMalformedKeyExpressionFailsTheStartUpNamingTheMethod() {
        contextRunner
                .withBean(MalformedKeyService.class)
                .run(context -> assertStartupFailure(context)
                        .hasMessageStartingWith("@DistributedLock on MalformedKeyService.settle(long): key expression"
                                + " ''invoice:' + #id +' could not be parsed: "));
    }

    @Test
    void anUnquotedLiteralKeyFailsTheStartUp() {
        contextRunner
                .withBean(UnquotedLiteralService.class)
                .run(context -> assertStartupFailure(context)
                        .hasMessageContaining("@DistributedLock on UnquotedLiteralService.run()")
                        .hasMessageContaining(
                                "refers to 'nightly', which is neither a parameter nor a property of the root"));
    }

    @Test
    void aKeyReferringToAnUnknownParameterFailsTheStartUp() {
        contextRunner
                .withBean(UnknownVariableService.class)
                .run(context -> assertStartupFailure(context)
                        .hasMessageContaining("@DistributedLock on UnknownVariableService.settle(long)")
                        .hasMessageContaining(
                                "refers to #invoiceId, which is not a parameter; the parameters are [#id]"));
    }

    @Test
    void aMalformedDurationFailsTheStartUpNamingTheMethod() {
        contextRunner
                .withBean(MalformedDurationService.class)
                .run(context -> assertStartupFailure(context)
                        .hasMessageContaining("@DistributedLock on MalformedDurationService.run()")
                        .hasMessageContaining("leaseTime 'thirty seconds' is not a duration"));
    }

    @Test
    void anUnresolvablePlaceholderFailsTheStartUpNamingTheMethod() {
        contextRunner
                .withBean(UnresolvablePlaceholderService.class)
                .run(context -> assertStartupFailure(context)
                        .hasMessageContaining("@DistributedLock on UnresolvablePlaceholderService.run()")
                        .hasMessageContaining("waitTime '${no.such.property}' could not be resolved"));
    }

    @Test
    void invalidOptionsFailTheStartUpNamingTheMethod() {
        contextRunner
                .withBean(InvalidOptionsService.class)
                .run(context -> assertStartupFailure(context)
                        .hasMessageContaining("@DistributedLock on InvalidOptionsService.run()")
                        .hasMessageContaining("min hold time PT2S exceeds the longest possible hold PT1S"));
    }

    @Test
    void aPrivateAnnotatedMethodFailsTheStartUp() {
        contextRunner
                .withBean(PrivateMethodService.class)
                .run(context -> assertStartupFailure(context)
                        .hasMessageContaining("@DistributedLock on PrivateMethodService.hidden()")
                        .hasMessageContaining("a private method cannot be intercepted"));
    }

    @Test
    void aLazyBeanIsCheckedAtStartUpToo() {
        contextRunner
                .withBean(MalformedDurationService.class, MalformedDurationService::new, bd -> bd.setLazyInit(true))
                .run(context -> assertStartupFailure(context)
                        .hasMessageContaining("@DistributedLock on MalformedDurationService.run()"));
    }

    @Test
    void annotatedMethodsWithoutALockManagerFailTheStartUp() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class))
                .withBean(LockedService.class)
                .withBean("keys", KeyParts.class)
                .withPropertyValues("test.max-hold=2h")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .isInstanceOf(NoLockManagerException.class)
                            .hasMessageStartingWith(
                                    "@DistributedLock is used on [LockedService.composite(String, int),");
                });
    }

    @Test
    void worksWithoutSpringBootAsAnInfrastructureBeanNextToEnableTransactionManagement() {
        new ApplicationContextRunner()
                .withUserConfiguration(PlainSpringConfiguration.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Lease inside = context.getBean(LockedService.class).settle(5);
                    assertThat(inside.key()).isEqualTo("invoice:5");
                });
    }

    @Test
    void warnsAboutAnnotatedBeansCreatedBeforeAutoProxying(CapturedOutput output) {
        contextRunner.withUserConfiguration(EarlyBeanConfiguration.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(AopUtils.isAopProxy(context.getBean(EarlyService.class))).isFalse();
            assertThat(output)
                    .contains(
                            "Bean 'earlyService' has @DistributedLock methods [EarlyService.run()] but is not proxied");
        });
    }

    private static Throwable startupFailure(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        Throwable failure = context.getStartupFailure();
        while (failure != null && !(failure instanceof InvalidDistributedLockException)) {
            failure = failure.getCause();
        }
        assertThat(failure)
                .as("InvalidDistributedLockException in the cause chain")
                .isNotNull();
        return failure;
    }

    private static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertStartupFailure(
            AssertableApplicationContext context) {
        return assertThat(startupFailure(context));
    }

    static class KeyParts {

        public String suffix() {
            return "suffix";
        }
    }

    static class SkippingService {

        private final AtomicInteger calls = new AtomicInteger();

        /** Read through the proxy: a field read on a class proxy would see the proxy's own, unset field. */
        public int calls() {
            return calls.get();
        }

        @DistributedLock(key = "'report'", onLocked = OnLocked.SKIP)
        public String text() {
            calls.incrementAndGet();
            return "ran";
        }

        @DistributedLock(key = "'report'", onLocked = OnLocked.SKIP)
        public void nothing() {
            calls.incrementAndGet();
        }

        @DistributedLock(key = "'report'", onLocked = OnLocked.SKIP)
        public Optional<String> optional() {
            calls.incrementAndGet();
            return Optional.of("ran");
        }

        @DistributedLock(key = "'report'", onLocked = OnLocked.SKIP)
        public OptionalInt optionalInt() {
            calls.incrementAndGet();
            return OptionalInt.of(1);
        }

        @DistributedLock(key = "'report'", onLocked = OnLocked.SKIP)
        public int count() {
            calls.incrementAndGet();
            return 42;
        }

        @DistributedLock(key = "'report'", onLocked = OnLocked.SKIP)
        public long total() {
            calls.incrementAndGet();
            return 42L;
        }

        @DistributedLock(key = "'report'", onLocked = OnLocked.SKIP)
        public boolean done() {
            calls.incrementAndGet();
            return true;
        }

        @DistributedLock(key = "'report'", onLocked = OnLocked.SKIP)
        public double ratio() {
            calls.incrementAndGet();
            return 0.5;
        }

        @DistributedLock(key = "'report'", onLocked = OnLocked.SKIP)
        public char letter() {
            calls.incrementAndGet();
            return 'x';
        }

        @DistributedLock(key = "'report'", onLocked = OnLocked.SKIP)
        public CompletableFuture<String> future() {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        @DistributedLock(key = "'report'", onLocked = OnLocked.SKIP)
        public CompletableFuture<Optional<String>> futureOfOptional() {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture(Optional.of("ran"));
        }
    }

    static class LockedService {

        private final AtomicInteger calls = new AtomicInteger();

        /** Read through the proxy: a field read on a class proxy would see the proxy's own, unset field. */
        public int calls() {
            return calls.get();
        }

        public final String prefix = "svc";

        @DistributedLock(key = "'invoice:' + #id")
        public Lease settle(long id) {
            calls.incrementAndGet();
            return LockContext.current().orElseThrow();
        }

        @DistributedLock(key = "'failing:' + #id")
        public void fail(int id) {
            throw new IllegalArgumentException("boom " + id);
        }

        @DistributedLock(key = "#name")
        public void named(String name) {
            calls.incrementAndGet();
        }

        @DistributedLock(
                key = "#root.methodName + ':' + #root.targetClass.simpleName + ':' + #root.target.prefix + ':'"
                        + " + #region + ':' + #p1 + ':' + @keys.suffix()")
        public void composite(String region, int shard) {}

        @DistributedLock(
                key = "'timed'",
                leaseTime = "500ms",
                waitTime = "1m",
                minHoldTime = "PT0.1S",
                maxHoldTime = "${test.max-hold}",
                renew = false,
                name = "timed-job")
        public void timed() {}

        @DistributedLock(key = "'later'")
        public CompletableFuture<String> later(CompletableFuture<String> work) {
            return work;
        }

        @DistributedLock(key = "'later'", onLocked = OnLocked.SKIP)
        public CompletableFuture<String> laterOrSkip(CompletableFuture<String> work) {
            return work;
        }

        @DistributedLock(key = "'later'", waitTime = "10s")
        public CompletableFuture<String> laterOrWait(CompletableFuture<String> work) {
            return work;
        }

        @DistributedLock(key = "'later-stage'")
        public CompletionStage<String> laterStage(CompletableFuture<String> work) {
            return work;
        }
    }

    @DistributedLock(key = "'nightly'")
    static class TypeLevelService {

        public String first() {
            return LockContext.current().orElseThrow().key();
        }

        public String second() {
            return LockContext.current().orElseThrow().key();
        }

        String notPublic() {
            return LockContext.current().isPresent() ? "locked" : "unlocked";
        }
    }

    interface Billing {

        String bill(long id);
    }

    static class BillingService implements Billing {

        @Override
        @DistributedLock(key = "'invoice:' + #id")
        public String bill(long id) {
            return LockContext.current().orElseThrow().key();
        }
    }

    static class AsyncService {

        @Async
        @DistributedLock(key = "'async-job'")
        public CompletableFuture<String> work() {
            String key = LockContext.current().orElseThrow().key();
            return CompletableFuture.completedFuture(
                    key + "@" + Thread.currentThread().getName());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAsync
    static class AsyncConfiguration {

        @Bean
        AsyncService asyncService() {
            return new AsyncService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class PlainSpringConfiguration {

        @Bean
        DefaultLockManager lockManager() {
            return DefaultLockManager.builder(new InMemoryLeaseStore()).build();
        }

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        DistributedLockAdvisor distributedLockAdvisor(DefaultLockManager lockManager) {
            return new DistributedLockAdvisor(lockManager);
        }

        @Bean
        KeyParts keys() {
            return new KeyParts();
        }

        @Bean
        LockedService lockedService() {
            return new LockedService();
        }

        @Bean
        static PropertySourcesPlaceholderConfigurer placeholders() {
            PropertySourcesPlaceholderConfigurer configurer = new PropertySourcesPlaceholderConfigurer();
            configurer.setProperties(new java.util.Properties() {
                {
                    setProperty("test.max-hold", "2h");
                }
            });
            return configurer;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class EarlyBeanConfiguration {

        @Bean
        static EarlyService earlyService() {
            return new EarlyService();
        }

        /** Created with the highest-priority post-processors, before the auto-proxy creator: so is its dependency. */
        @Bean
        static EarlyPostProcessor earlyPostProcessor(EarlyService earlyService) {
            return new EarlyPostProcessor();
        }
    }

    static class EarlyPostProcessor implements BeanPostProcessor, PriorityOrdered {

        @Override
        public int getOrder() {
            return 0;
        }
    }

    static class EarlyService {

        @DistributedLock(key = "'early'")
        public void run() {}
    }

    static class MalformedKeyService {

        @DistributedLock(key = "'invoice:' + #id +")
        public void settle(long id) {}
    }

    static class UnknownVariableService {

        @DistributedLock(key = "'invoice:' + #invoiceId")
        public void settle(long id) {}
    }

    static class UnquotedLiteralService {

        @DistributedLock(key = "nightly-report")
        public void run() {}
    }

    static class MalformedDurationService {

        @DistributedLock(key = "'run'", leaseTime = "thirty seconds")
        public void run() {}
    }

    static class UnresolvablePlaceholderService {

        @DistributedLock(key = "'run'", waitTime = "${no.such.property}")
        public void run() {}
    }

    static class InvalidOptionsService {

        @DistributedLock(key = "'run'", leaseTime = "1s", minHoldTime = "2s", renew = false)
        public void run() {}
    }

    static class PrivateMethodService {

        public void visible() {
            hidden();
        }

        @DistributedLock(key = "'hidden'")
        private void hidden() {}
    }
}
