package io.fencepost.lock.spring.aop;

import io.fencepost.lock.LockOptions;
import io.fencepost.lock.OnLocked;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ResolvableType;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;

/** One parsed {@code @DistributedLock}: the key expression, the durations and what a skipped call returns. */
final class LockDefinition {

    private final String method;

    private final Method specificMethod;

    private final String keySource;

    private final Expression key;

    private final Duration leaseTime;

    private final Duration waitTime;

    private final Duration minHoldTime;

    private final Duration maxHoldTime;

    private final boolean renew;

    private final OnLocked onLocked;

    private final String name;

    private final boolean interruptOnLoss;

    private final boolean fair;

    private final boolean returnsFuture;

    private volatile Resolved resolved;

    private record Resolved(LockOptions defaults, LockOptions options) {}

    LockDefinition(
            String method,
            Method specificMethod,
            String keySource,
            Expression key,
            Duration leaseTime,
            Duration waitTime,
            Duration minHoldTime,
            Duration maxHoldTime,
            boolean renew,
            OnLocked onLocked,
            String name,
            boolean interruptOnLoss,
            boolean fair) {
        this.method = method;
        this.specificMethod = specificMethod;
        this.keySource = keySource;
        this.key = key;
        this.leaseTime = leaseTime;
        this.waitTime = waitTime;
        this.minHoldTime = minHoldTime;
        this.maxHoldTime = maxHoldTime;
        this.renew = renew;
        this.onLocked = onLocked;
        this.name = name;
        this.interruptOnLoss = interruptOnLoss;
        this.fair = fair;
        this.returnsFuture = CompletionStage.class.isAssignableFrom(specificMethod.getReturnType());
    }

    /** The annotated method as {@code ClassName.method(ParameterTypes)}, for messages. */
    String method() {
        return method;
    }

    OnLocked onLocked() {
        return onLocked;
    }

    /** The low-cardinality name of the lock, for metrics and traces. */
    String name() {
        return name;
    }

    /** Whether a loss of the lease interrupts the thread running the method. */
    boolean interruptOnLoss() {
        return interruptOnLoss;
    }

    boolean returnsFuture() {
        return returnsFuture;
    }

    Class<?> returnType() {
        return specificMethod.getReturnType();
    }

    /**
     * The lock options of this method: its own durations, the application's defaults for the rest. Computed once
     * per defaults instance.
     *
     * @throws InvalidDistributedLockException when the combination is invalid (for example a min hold time beyond
     *     the lease time of a lease that is not renewed)
     */
    LockOptions options(LockOptions defaults) {
        Resolved current = resolved;
        if (current != null && current.defaults() == defaults) {
            return current.options();
        }
        LockOptions options;
        try {
            options = LockOptions.builder()
                    .leaseTime(leaseTime != null ? leaseTime : defaults.leaseTime())
                    .waitTime(waitTime != null ? waitTime : defaults.waitTime())
                    .minHoldTime(minHoldTime != null ? minHoldTime : defaults.minHoldTime())
                    .maxHoldTime(maxHoldTime != null ? maxHoldTime : defaults.maxHoldTime())
                    .renew(renew)
                    .name(name)
                    .fair(fair)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new InvalidDistributedLockException(method, e.getMessage(), e);
        }
        resolved = new Resolved(defaults, options);
        return options;
    }

    /**
     * Evaluates the key for one call.
     *
     * @throws IllegalArgumentException when the expression fails or yields null or a blank string
     */
    String key(
            Object[] args,
            Object target,
            Class<?> targetClass,
            ParameterNameDiscoverer parameterNames,
            BeanResolver beanResolver) {
        LockExpressionRoot root = new LockExpressionRoot(specificMethod, args, target, targetClass);
        MethodBasedEvaluationContext context =
                new MethodBasedEvaluationContext(root, specificMethod, args, parameterNames);
        if (beanResolver != null) {
            context.setBeanResolver(beanResolver);
        }
        Object value;
        try {
            value = key.getValue(context);
        } catch (EvaluationException e) {
            throw new IllegalArgumentException(
                    "@DistributedLock on " + method + ": key expression '" + keySource + "' failed: " + e.getMessage(),
                    e);
        }
        String text = value == null ? null : value.toString();
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("@DistributedLock on " + method + ": key expression '" + keySource
                    + "' evaluated to " + (text == null ? "null" : "a blank string '" + text + "'")
                    + "; the method was not run (a lock key must not be null or blank)");
        }
        return text;
    }

    /** What the method returns when {@code onLocked = SKIP} and the key is busy: its type's "nothing". */
    Object skipValue() {
        Class<?> type = specificMethod.getReturnType();
        if (type == void.class || type == Void.class) {
            return null;
        }
        if (type.isPrimitive()) {
            return Array.get(Array.newInstance(type, 1), 0);
        }
        if (returnsFuture) {
            Class<?> content = ResolvableType.forMethodReturnType(specificMethod)
                    .as(CompletionStage.class)
                    .getGeneric(0)
                    .resolve(Object.class);
            return CompletableFuture.completedFuture(emptyValueOf(content));
        }
        return emptyValueOf(type);
    }

    private static Object emptyValueOf(Class<?> type) {
        if (type == Optional.class) {
            return Optional.empty();
        }
        if (type == OptionalInt.class) {
            return OptionalInt.empty();
        }
        if (type == OptionalLong.class) {
            return OptionalLong.empty();
        }
        if (type == OptionalDouble.class) {
            return OptionalDouble.empty();
        }
        return null;
    }
}
