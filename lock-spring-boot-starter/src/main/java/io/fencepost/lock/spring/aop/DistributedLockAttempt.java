package io.fencepost.lock.spring.aop;

import io.fencepost.lock.OnLocked;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The {@code @DistributedLock} call that is acquiring its lease on the current thread, for
 * {@link io.fencepost.lock.spi.LockListener}s that want to tell a call skipped by {@code onLocked = SKIP} from a key
 * that stayed busy: the lock manager tells its listener on the acquiring thread, while this is set.
 */
public final class DistributedLockAttempt {

    private static final ThreadLocal<DistributedLockAttempt> CURRENT = new ThreadLocal<>();

    private final String method;

    private final String name;

    private final OnLocked onLocked;

    DistributedLockAttempt(String method, String name, OnLocked onLocked) {
        this.method = method;
        this.name = name;
        this.onLocked = onLocked;
    }

    /** The annotated call acquiring on this thread right now; empty outside an annotated acquisition. */
    public static Optional<DistributedLockAttempt> current() {
        return Optional.ofNullable(CURRENT.get());
    }

    /** The annotated method, as {@code ClassName.method(ParameterTypes)}. */
    public String method() {
        return method;
    }

    /** The lock's low-cardinality name (the annotation's {@code name}, default {@code ClassName.method}). */
    public String name() {
        return name;
    }

    /** What the call does when the key stays busy. */
    public OnLocked onLocked() {
        return onLocked;
    }

    /** Whether a busy key makes the call skip the method rather than throw. */
    public boolean skipsWhenLocked() {
        return onLocked == OnLocked.SKIP;
    }

    /** Runs {@code acquisition} with this attempt current on the calling thread. */
    <T> T run(Supplier<T> acquisition) {
        DistributedLockAttempt outer = CURRENT.get();
        CURRENT.set(this);
        try {
            return acquisition.get();
        } finally {
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
        }
    }

    @Override
    public String toString() {
        return "DistributedLockAttempt[" + method + ", name=" + name + ", onLocked=" + onLocked + "]";
    }
}
