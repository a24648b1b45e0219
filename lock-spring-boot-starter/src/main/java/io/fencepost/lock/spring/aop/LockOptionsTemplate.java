package io.fencepost.lock.spring.aop;

import io.fencepost.lock.LockOptions;
import java.util.function.Consumer;

/**
 * The options one {@code @DistributedLock} sets, laid over the application's defaults; merged once per defaults
 * instance. A new option of the annotation is one more line where the template is made, not a field here.
 */
final class LockOptionsTemplate {

    /** The annotated method as {@code ClassName.method(ParameterTypes)}, for messages. */
    private final String method;

    /** Sets the annotation's own options on a builder that starts from the defaults. */
    private final Consumer<LockOptions.Builder> annotated;

    private volatile Resolved resolved;

    private record Resolved(LockOptions defaults, LockOptions options) {}

    LockOptionsTemplate(String method, Consumer<LockOptions.Builder> annotated) {
        this.method = method;
        this.annotated = annotated;
    }

    /**
     * The method's options: its own values, the application's defaults for the rest.
     *
     * @throws InvalidDistributedLockException when the combination is invalid (for example a min hold time beyond
     *     the lease time of a lease that is not renewed)
     */
    LockOptions over(LockOptions defaults) {
        Resolved current = resolved;
        if (current != null && current.defaults() == defaults) {
            return current.options();
        }
        LockOptions merged;
        try {
            LockOptions.Builder builder = defaults.toBuilder();
            annotated.accept(builder);
            merged = builder.build();
        } catch (IllegalArgumentException e) {
            throw new InvalidDistributedLockException(method, e.getMessage(), e);
        }
        resolved = new Resolved(defaults, merged);
        return merged;
    }
}
