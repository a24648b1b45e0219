package io.fencepost.lock.spring.aop;

/**
 * A {@code @DistributedLock} annotation cannot be used as written: its key expression or a duration does not parse,
 * or it sits on a method that a proxy cannot intercept. Thrown at start-up; the message names the method.
 */
public class InvalidDistributedLockException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String method;

    public InvalidDistributedLockException(String method, String problem, Throwable cause) {
        super("@DistributedLock on " + method + ": " + problem, cause);
        this.method = method;
    }

    /** The annotated method, as {@code ClassName.method(ParameterTypes)}. */
    public String method() {
        return method;
    }
}
