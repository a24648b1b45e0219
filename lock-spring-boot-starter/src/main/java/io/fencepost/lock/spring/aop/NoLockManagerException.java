package io.fencepost.lock.spring.aop;

import java.util.List;

/**
 * {@code @DistributedLock} methods exist but the application context has no {@link io.fencepost.lock.LockManager}
 * to lock them with. Thrown at start-up rather than letting the methods run unlocked.
 */
public class NoLockManagerException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final List<String> methods;

    public NoLockManagerException(List<String> methods) {
        super("@DistributedLock is used on " + methods + " but there is no LockManager bean to lock them with");
        this.methods = List.copyOf(methods);
    }

    /** The annotated methods, as {@code ClassName.method(ParameterTypes)}. */
    public List<String> methods() {
        return methods;
    }
}
