package io.fencepost.lock.spring.aop;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockContext;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.OnLocked;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
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
 * or, for a method returning a {@link CompletionStage}, when that stage completes.
 */
public final class DistributedLockInterceptor implements MethodInterceptor {

    private static final Log logger = LogFactory.getLog(DistributedLockInterceptor.class);

    private final LockDefinitionSource source;

    private final Supplier<LockManager> lockManagerSupplier;

    private final Supplier<LockOptions> defaultsSupplier;

    private volatile LockManager lockManager;

    private volatile LockOptions defaults;

    private volatile BeanResolver beanResolver;

    /** Leases held for futures that are not complete yet, by key. */
    private final Map<String, PendingHold> pending = new ConcurrentHashMap<>();

    DistributedLockInterceptor(
            LockDefinitionSource source, Supplier<LockManager> lockManager, Supplier<LockOptions> defaults) {
        this.source = source;
        this.lockManagerSupplier = Objects.requireNonNull(lockManager, "lockManager");
        this.defaultsSupplier = Objects.requireNonNull(defaults, "defaults");
    }

    void setBeanResolver(BeanResolver beanResolver) {
        this.beanResolver = beanResolver;
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
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopProxyUtils.ultimateTargetClass(target) : null;
        LockDefinition lock = source.find(invocation.getMethod(), targetClass);
        if (lock == null) {
            return invocation.proceed();
        }
        String key = lock.key(
                invocation.getArguments(),
                target,
                targetClass != null ? targetClass : invocation.getMethod().getDeclaringClass(),
                source.parameterNames(),
                beanResolver);
        LockOptions options = lock.options(defaults());
        LockManager manager = lockManager();
        if (manager == null) {
            throw new NoLockManagerException(List.of(lock.method()));
        }
        Lease lease = acquire(manager, key, options, lock.onLocked() == OnLocked.SKIP);
        if (lease == null) {
            if (logger.isDebugEnabled()) {
                logger.debug("Skipped " + lock.method() + ": lock '" + key + "' is held elsewhere");
            }
            return lock.skipValue();
        }
        boolean releaseNow = true;
        try {
            Object result = LockContext.callWith(lease, held -> proceed(invocation));
            if (lock.returnsFuture() && result instanceof CompletionStage<?> stage) {
                releaseNow = false;
                return releaseOnCompletion(stage, lease, lock.returnType(), key);
            }
            return result;
        } finally {
            if (releaseNow) {
                lease.close();
            }
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
            PendingHold hold = pending.get(key);
            if (hold == null
                    || hold.fencingToken() != lease.fencingToken()
                    || LockContext.current(key).isPresent()) {
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
                                + " acquired after waiting " + options.waitTime()
                                + " (raise waitTime to wait for that future)");
            }
            attempt = options.toBuilder()
                    .waitTime(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))
                    .build();
        }
    }

    private static boolean awaitRelease(PendingHold hold, long nanos, String key) {
        try {
            hold.released().get(nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockNotAcquiredException(key, "interrupted while waiting for lock '" + key + "'");
        } catch (ExecutionException e) {
            return true; // the signal never fails; should it, retrying is still right
        }
    }

    private static Object proceed(MethodInvocation invocation) throws Exception {
        try {
            return invocation.proceed();
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new UndeclaredThrowableException(t);
        }
    }

    /**
     * Keeps the lease until the work behind the stage is done. For the declared types {@code CompletableFuture} and
     * {@code CompletionStage} the caller gets a stage that completes only after the release, so that a caller who
     * chains another locked call on it finds the key free; cancelling that stage leaves the work and its lease alone.
     */
    private Object releaseOnCompletion(CompletionStage<?> stage, Lease lease, Class<?> declaredType, String key) {
        PendingHold hold = retain(key, lease.fencingToken());
        CompletionStage<?> released;
        try {
            released = stage.whenComplete((value, failure) -> {
                lease.close();
                release(key, hold);
            });
        } catch (RuntimeException | Error e) {
            lease.close();
            release(key, hold);
            throw e;
        }
        if (declaredType == CompletableFuture.class || declaredType == CompletionStage.class) {
            return released;
        }
        return stage;
    }

    /** Counts one more future holding the grant {@code fencingToken} of {@code key}. */
    private PendingHold retain(String key, long fencingToken) {
        PendingHold[] stale = new PendingHold[1];
        PendingHold hold = pending.compute(key, (k, current) -> {
            if (current != null && current.fencingToken() == fencingToken) {
                current.futures().incrementAndGet();
                return current;
            }
            stale[0] = current; // an earlier grant that is gone: nobody can re-enter it any more
            return new PendingHold(fencingToken, new AtomicInteger(1), new CompletableFuture<>());
        });
        if (stale[0] != null) {
            stale[0].released().complete(null);
        }
        return hold;
    }

    /** Counts one future less; in the map's lock for the key, so that it cannot race {@link #retain}. */
    private void release(String key, PendingHold hold) {
        boolean[] last = {false};
        pending.compute(key, (k, current) -> {
            if (hold.futures().decrementAndGet() > 0) {
                return current;
            }
            last[0] = true;
            return current == hold ? null : current;
        });
        if (last[0]) {
            hold.released().complete(null);
        }
    }

    /** A grant held for futures that have not completed: how many, and a signal when the last is released. */
    private record PendingHold(long fencingToken, AtomicInteger futures, CompletableFuture<Void> released) {}
}
