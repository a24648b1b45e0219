package io.fencepost.lock.spring.aop;

import io.fencepost.lock.OnLocked;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.springframework.core.ResolvableType;

/**
 * One parsed {@code @DistributedLock}: its key expression, its options and what a skipped call returns.
 *
 * @param key the key expression
 * @param options the annotation's options, to lay over the application's defaults
 * @param onLocked what the call does when the key stays busy
 * @param name the low-cardinality name of the lock, for metrics and traces
 * @param interruptOnLoss whether a loss of the lease interrupts the thread running the method
 * @param fenceTransaction whether the method's transaction is bound to the lease just before it commits
 * @param targetClass the class whose method this is, for its transaction attributes
 */
record LockDefinition(
        LockKeyExpression key,
        LockOptionsTemplate options,
        OnLocked onLocked,
        String name,
        boolean interruptOnLoss,
        boolean fenceTransaction,
        Class<?> targetClass) {

    /** The annotated method as {@code ClassName.method(ParameterTypes)}, for messages. */
    String method() {
        return key.method();
    }

    Class<?> returnType() {
        return key.specificMethod().getReturnType();
    }

    boolean returnsFuture() {
        return CompletionStage.class.isAssignableFrom(returnType());
    }

    /** What the method returns when {@code onLocked = SKIP} and the key is busy: its type's "nothing". */
    Object skipValue() {
        Class<?> type = returnType();
        if (type == void.class || type == Void.class) {
            return null;
        }
        if (type.isPrimitive()) {
            return Array.get(Array.newInstance(type, 1), 0);
        }
        if (returnsFuture()) {
            Method method = key.specificMethod();
            Class<?> content = ResolvableType.forMethodReturnType(method)
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
