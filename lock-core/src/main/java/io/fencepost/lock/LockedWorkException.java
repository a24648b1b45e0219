package io.fencepost.lock;

/** Wraps a checked exception thrown by work run through {@link LockManager#withLock}. */
public class LockedWorkException extends LockException {

    private static final long serialVersionUID = 1L;

    public LockedWorkException(String key, Exception cause) {
        super("work under lock '" + key + "' failed: " + cause, cause);
    }
}
