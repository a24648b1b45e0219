package io.fencepost.lock.spring.aop;

import java.lang.reflect.Method;

/**
 * The root object of {@code @DistributedLock} key expressions: {@code #root.method}, {@code #root.target},
 * {@code #root.targetClass}, {@code #root.args} and {@code #root.methodName}.
 */
public final class LockExpressionRoot {

    private final Method method;

    private final Object[] args;

    private final Object target;

    private final Class<?> targetClass;

    LockExpressionRoot(Method method, Object[] args, Object target, Class<?> targetClass) {
        this.method = method;
        this.args = args;
        this.target = target;
        this.targetClass = targetClass;
    }

    /** The invoked method. */
    public Method getMethod() {
        return method;
    }

    /** The invoked method's name. */
    public String getMethodName() {
        return method.getName();
    }

    /** The arguments of the call. */
    public Object[] getArgs() {
        return args;
    }

    /** The bean the method is invoked on (the target behind the proxy). */
    public Object getTarget() {
        return target;
    }

    /** The target's class. */
    public Class<?> getTargetClass() {
        return targetClass;
    }
}
