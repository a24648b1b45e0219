package io.fencepost.lock.spring.aop;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockContext;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.MultiLease;
import io.fencepost.lock.OnLocked;
import io.fencepost.lock.internal.Durations;
import io.fencepost.lock.internal.LogSafe;
import io.fencepost.lock.spring.transaction.TransactionFence;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.expression.BeanResolver;

/**
 * Runs a {@code @DistributedLock} method under a lease on its key: acquires before the call, makes the lease
 * {@link LockContext#current() current} while the method runs, and releases it when the method returns or throws,
 * or, for a method returning a {@link CompletionStage}, when that stage completes. A key expression that yields a
 * collection or an array takes all its keys together ({@link LockManager#acquireAll}), with every lease current.
 *
 * <p>With an {@link ObservationRegistry}, the acquisition and the hold are Micrometer observations
 * ({@value #ACQUIRE_OBSERVATION} and {@value #HOLD_OBSERVATION}, low-cardinality key values {@code name} and
 * {@code result}), so that a tracing set-up shows lock spans around the method's own.
 */
public final class DistributedLockInterceptor implements MethodInterceptor {

    /** The observation of a lease's acquisition: {@code result} is acquired, skipped, not-acquired or error. */
    public static final String ACQUIRE_OBSERVATION = "fencepost.lock.acquisition";

    /** The observation of the method running under the lease: {@code result} is released or lost. */
    public static final String HOLD_OBSERVATION = "fencepost.lock.hold";

    private static final Log logger = LogFactory.getLog(DistributedLockInterceptor.class);

    private final LockDefinitionSource source;

    private final Supplier<LockManager> lockManagerSupplier;

    private final Supplier<LockOptions> defaultsSupplier;

    private volatile LockManager lockManager;

    private volatile LockOptions defaults;

    private volatile BeanResolver beanResolver;

    private volatile Supplier<ObservationRegistry> observationRegistrySupplier = () -> ObservationRegistry.NOOP;

    private volatile ObservationRegistry observationRegistry;

    /** Null when the application does not set one up (locking disabled): fenced calls then fail closed. */
    private volatile Supplier<TransactionFence> transactionFence;

    /** Leases held for futures that are not complete yet. */
    private final FutureHolds futureHolds = new FutureHolds();

    DistributedLockInterceptor(
            LockDefinitionSource source, Supplier<LockManager> lockManager, Supplier<LockOptions> defaults) {
        this.source = source;
        this.lockManagerSupplier = Objects.requireNonNull(lockManager, "lockManager");
        this.defaultsSupplier = Objects.requireNonNull(defaults, "defaults");
    }

    void setBeanResolver(BeanResolver beanResolver) {
        this.beanResolver = beanResolver;
    }

    void setTransactionFence(Supplier<TransactionFence> transactionFence) {
        this.transactionFence = Objects.requireNonNull(transactionFence, "transactionFence");
    }

    /** Whether the application set up something to bind fenced methods' transactions with. */
    boolean fencesTransactions() {
        return transactionFence != null;
    }

    /** What binds fenced methods' transactions to their leases, or null when there is none. */
    TransactionFence transactionFence() {
        Supplier<TransactionFence> supplier = transactionFence;
        return supplier != null ? supplier.get() : null;
    }

    void setObservationRegistry(Supplier<ObservationRegistry> observationRegistry) {
        this.observationRegistrySupplier = Objects.requireNonNull(observationRegistry, "observationRegistry");
        this.observationRegistry = null;
    }

    /** The registry the lock steps are observed in; asked once, lazily, since advisors are created early. */
    private ObservationRegistry observationRegistry() {
        ObservationRegistry registry = observationRegistry;
        if (registry == null) {
            registry = observationRegistrySupplier.get();
            if (registry == null) {
                registry = ObservationRegistry.NOOP;
            }
            observationRegistry = registry;
        }
        return registry;
    }

    /** The lock manager, or null when the application has none. */
    LockManager lockManager() {
        LockManager manager = lockManager;
        if (manager == null) {
            manager = lockManagerSupplier.get();
            lockManager = manager;
        }
        return manager;
    }

    /** The application's default lock options (lease time, wait time, max hold time). */
    LockOptions defaults() {
        LockOptions options = defaults;
        if (options == null) {
            options = Objects.requireNonNull(defaultsSupplier.get(), "default lock options");
            defaults = options;
        }
        return options;
    }

    @Override
    @SuppressWarnings("try") // the scopes make the observations current; nothing reads them
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopProxyUtils.ultimateTargetClass(target) : null;
        LockDefinition lock = source.find(invocation.getMethod(), targetClass);
        if (lock == null) {
            return invocation.proceed();
        }
        LockKeyExpression.Keys keys = lock.key()
                .evaluate(
                        invocation.getArguments(),
                        target,
                        targetClass != null
                                ? targetClass
                                : invocation.getMethod().getDeclaringClass(),
                        source.parameterNames(),
                        beanResolver);
        LockOptions options = lock.options().over(defaults());
        LockManager manager = lockManager();
        if (manager == null) {
            throw new NoLockManagerException(List.of(lock.method()));
        }
        ObservationRegistry registry = observationRegistry();
        if (keys.set()) {
            return invokeWithSet(invocation, lock, keys.keys(), manager, options, registry, targetClass);
        }
        String key = keys.keys().get(0);
        Lease lease = observedAcquire(
                lock,
                key,
                registry,
                () -> acquire(manager, key, options, lock.onLocked() == OnLocked.SKIP),
                Lease::close);
        if (lease == null) {
            if (logger.isDebugEnabled()) {
                logger.debug("Skipped " + lock.method() + ": lock '" + LogSafe.text(key) + "' is held elsewhere");
            }
            return lock.skipValue();
        }
        TransactionFence fence = fenceOrRelease(lock, lease::close);
        Observation holding;
        LossInterrupt interrupt;
        try {
            holding = startHold(registry, lock, key, Long.toString(lease.fencingToken()));
            interrupt = lock.interruptOnLoss() ? LossInterrupt.register(lease, lock.method()) : null;
        } catch (RuntimeException | Error e) {
            lease.close(); // a failing observation handler must not leave the key locked
            throw e;
        }
        boolean releaseNow = true;
        try (Observation.Scope scope = holding.openScope()) {
            Object result;
            try {
                result = fence == null
                        ? AbstractLeaseAdvisor.proceedInside(lease, invocation)
                        : fencedCall(fence, lock, lease, invocation, targetClass);
            } finally {
                if (interrupt != null) {
                    interrupt.methodEnded();
                }
            }
            if (lock.returnsFuture() && result instanceof CompletionStage<?> stage) {
                releaseNow = false;
                return releaseOnCompletion(stage, lease, lock.returnType(), key, holding);
            }
            return result;
        } catch (Throwable failure) {
            holding.error(failure);
            throw failure;
        } finally {
            if (releaseNow) {
                endHold(lease, holding);
            }
        }
    }

    /**
     * Runs the method under a set of keys taken together ({@link LockManager#acquireAll}): every lease of the set is
     * current while it runs ({@link LockContext#current(String)} finds each), a fenced transaction is bound to every
     * one of them, and the set is released when the method returns or throws.
     */
    @SuppressWarnings("try") // the scope makes the observation current; nothing reads it
    private Object invokeWithSet(
            MethodInvocation invocation,
            LockDefinition lock,
            List<String> keys,
            LockManager manager,
            LockOptions options,
            ObservationRegistry registry,
            Class<?> targetClass)
            throws Throwable {
        if (lock.returnsFuture()) {
            throw new IllegalArgumentException("@DistributedLock on " + lock.method() + ": its key expression yielded"
                    + " a set of keys " + keys + ", which is not offered for a method returning a CompletionStage;"
                    + " the method was not run (lock one key, or lock the set in a method that does not return a"
                    + " future)");
        }
        String described = keys.toString();
        MultiLease set = observedAcquire(
                lock,
                described,
                registry,
                () -> lock.onLocked() == OnLocked.SKIP
                        ? manager.tryAcquireAll(keys, options).orElse(null)
                        : manager.acquireAll(keys, options),
                MultiLease::close);
        if (set == null) {
            if (logger.isDebugEnabled()) {
                logger.debug("Skipped " + lock.method() + ": a lock of the set " + LogSafe.text(described)
                        + " is held elsewhere");
            }
            return lock.skipValue();
        }
        TransactionFence fence = fenceOrRelease(lock, set::close);
        Observation holding;
        LossInterrupt interrupt;
        try {
            holding = startHold(
                    registry,
                    lock,
                    described,
                    set.leases().stream()
                            .map(lease -> Long.toString(lease.fencingToken()))
                            .toList()
                            .toString());
            interrupt = lock.interruptOnLoss() ? LossInterrupt.register(set.leases(), lock.method()) : null;
        } catch (RuntimeException | Error e) {
            set.close(); // a failing observation handler must not leave the keys locked
            throw e;
        }
        boolean lost = false;
        try (Observation.Scope scope = holding.openScope()) {
            try {
                return fence == null
                        ? proceedInsideAll(set.leases(), 0, invocation)
                        : fence.run(
                                set.leases(),
                                lock.method(),
                                invocation.getMethod(),
                                targetClass,
                                () -> proceedInsideAll(set.leases(), 0, invocation));
            } finally {
                if (interrupt != null) {
                    interrupt.methodEnded();
                }
            }
        } catch (Throwable failure) {
            holding.error(failure);
            throw failure;
        } finally {
            lost = !set.isHeld();
            try {
                set.close();
            } finally {
                holding.lowCardinalityKeyValue("result", lost ? "lost" : "released");
                holding.stop();
            }
        }
    }

    /**
     * The transaction fence of a method that asks for one; without one in the context, {@code release} lets go of what
     * was just taken and the call fails before the method runs.
     */
    private TransactionFence fenceOrRelease(LockDefinition lock, Runnable release) {
        if (!lock.fenceTransaction()) {
            return null;
        }
        TransactionFence fence = transactionFence();
        if (fence == null) {
            release.run();
            throw new InvalidDistributedLockException(lock.method(), TransactionFenceChecks.NO_FENCE, null);
        }
        return fence;
    }

    /** Starts the observation of a hold of {@code key} (a key, or a set of them) granted with {@code tokens}. */
    private static Observation startHold(ObservationRegistry registry, LockDefinition lock, String key, String tokens) {
        return Observation.createNotStarted(HOLD_OBSERVATION, registry)
                .contextualName("hold " + lock.name())
                .lowCardinalityKeyValue("name", lock.name())
                .highCardinalityKeyValue("key", key)
                .highCardinalityKeyValue("fencing.token", tokens)
                .start();
    }

    /** Proceeds with every lease of a set current, from {@code index} on: the last one innermost. */
    private static Object proceedInsideAll(List<Lease> leases, int index, MethodInvocation invocation)
            throws Exception {
        if (index == leases.size() - 1) {
            return AbstractLeaseAdvisor.proceedInside(leases.get(index), invocation);
        }
        return LockContext.callWith(leases.get(index), held -> proceedInsideAll(leases, index + 1, invocation));
    }

    /** Acquires the call's lease (or set of leases) inside its observation; null when skipped. */
    @SuppressWarnings("try")
    private static <T> T observedAcquire(
            LockDefinition lock, String key, ObservationRegistry registry, Supplier<T> acquisition, Consumer<T> close) {
        Observation observation = Observation.createNotStarted(ACQUIRE_OBSERVATION, registry)
                .contextualName("acquire " + lock.name())
                .lowCardinalityKeyValue("name", lock.name())
                .highCardinalityKeyValue("key", key)
                .start();
        T lease = null;
        try (Observation.Scope scope = observation.openScope()) {
            lease = acquisition.get();
            observation.lowCardinalityKeyValue("result", lease != null ? "acquired" : "skipped");
        } catch (LockNotAcquiredException e) {
            observation.lowCardinalityKeyValue("result", "not-acquired");
            observation.error(e);
            observation.stop();
            throw e;
        } catch (RuntimeException | Error e) {
            observation.lowCardinalityKeyValue("result", "error");
            observation.error(e);
            observation.stop();
            throw e;
        }
        try {
            observation.stop();
        } catch (RuntimeException | Error e) {
            if (lease != null) {
                close.accept(lease); // a failing observation handler must not leave the key locked
            }
            throw e;
        }
        return lease;
    }

    /** Releases the lease and ends the observation of its hold, noting whether the lease had been lost. */
    private static void endHold(Lease lease, Observation holding) {
        boolean lost = !lease.isHeld();
        try {
            lease.close();
        } finally {
            holding.lowCardinalityKeyValue("result", lost ? "lost" : "released");
            holding.stop();
        }
    }

    /**
     * Acquires the lease, or returns null when {@code skip} and the key is busy.
     *
     * <p>The lock engine is reentrant per thread, but a lease that a pending future of an earlier call holds is not
     * this call's to share: the earlier call's work may still be running elsewhere. Re-entering such a lease outside
     * the method that took it counts as busy; the call waits (up to its wait time) for the future to finish.
     */
    private Lease acquire(LockManager manager, String key, LockOptions options, boolean skip) {
        long deadline = System.nanoTime() + options.waitTime().toNanos();
        LockOptions attempt = options;
        while (true) {
            Lease lease = skip ? manager.tryAcquire(key, attempt).orElse(null) : manager.acquire(key, attempt);
            if (lease == null) {
                return null;
            }
            FutureHolds.Hold hold = futureHolds.pending(key, lease.fencingToken());
            if (hold == null || LockContext.current(key).isPresent()) {
                return lease;
            }
            lease.close();
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0 || !awaitRelease(hold, remaining, key)) {
                if (skip) {
                    return null;
                }
                throw new LockNotAcquiredException(
                        key,
                        "lock '" + key + "' is held for the pending future of an earlier call on this thread; not"
                                + " acquired within the wait time of " + Durations.readable(options.waitTime())
                                + " (raise waitTime to wait for that future)");
            }
            attempt = options.toBuilder()
                    .waitTime(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))
                    .build();
        }
    }

    private static boolean awaitRelease(FutureHolds.Hold hold, long nanos, String key) {
        try {
            return FutureHolds.awaitRelease(hold, nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockNotAcquiredException(key, "interrupted while waiting for lock '" + key + "'");
        }
    }

    private static Object fencedCall(
            TransactionFence fence, LockDefinition lock, Lease lease, MethodInvocation invocation, Class<?> targetClass)
            throws Exception {
        return fence.run(
                lease,
                lock.method(),
                invocation.getMethod(),
                targetClass,
                () -> AbstractLeaseAdvisor.proceedInside(lease, invocation));
    }

    /**
     * Keeps the lease until the work behind the stage is done. For the declared types {@code CompletableFuture} and
     * {@code CompletionStage} the caller gets a stage that completes only after the release, so that a caller who
     * chains another locked call on it finds the key free; cancelling that stage leaves the work and its lease alone.
     */
    private Object releaseOnCompletion(
            CompletionStage<?> stage, Lease lease, Class<?> declaredType, String key, Observation holding) {
        FutureHolds.Hold hold = futureHolds.retain(key, lease.fencingToken());
        CompletionStage<?> released;
        try {
            released = stage.whenComplete((value, failure) -> {
                if (failure != null) {
                    holding.error(failure);
                }
                try {
                    endHold(lease, holding);
                } finally {
                    futureHolds.release(key, hold);
                }
            });
        } catch (RuntimeException | Error e) {
            try {
                endHold(lease, holding);
            } finally {
                futureHolds.release(key, hold);
            }
            throw e;
        }
        if (declaredType == CompletableFuture.class || declaredType == CompletionStage.class) {
            return released;
        }
        return stage;
    }
}
