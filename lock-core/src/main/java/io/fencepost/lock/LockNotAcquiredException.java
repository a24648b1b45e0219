package io.fencepost.lock;

import java.time.Duration;

/** The key stayed held by someone else for the whole wait time. */
public class LockNotAcquiredException extends LockException {

    private static final long serialVersionUID = 1L;

    private final String key;

    public LockNotAcquiredException(String key, Duration waited) {
        super("lock '" + key + "' is held by another owner; not acquired after waiting " + waited
                + " (raise waitTime to wait longer, or use tryAcquire to handle a busy key)");
        this.key = key;
    }

    /** Not acquired for another reason, such as an interrupt while waiting. */
    public LockNotAcquiredException(String key, String message) {
        super(message);
        this.key = key;
    }

    /** The key that could not be acquired. */
    public String key() {
        return key;
    }
}
