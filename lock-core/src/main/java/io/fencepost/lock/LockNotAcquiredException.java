package io.fencepost.lock;

import io.fencepost.lock.internal.Durations;
import java.time.Duration;

/** The key stayed held by someone else for the whole wait time. */
public class LockNotAcquiredException extends LockException {

    private static final long serialVersionUID = 1L;

    private final String key;

    /** The key was busy for the whole of a wait that lasted {@code waited}. */
    public LockNotAcquiredException(String key, Duration waited) {
        this(key, waited, waited);
    }

    /**
     * The key was busy for the whole wait time {@code waitTime}, which lasted {@code waited}. A wait time of zero (one
     * attempt) says "busy", not how many microseconds the attempt took.
     */
    public LockNotAcquiredException(String key, Duration waitTime, Duration waited) {
        super(busyMessage(key, waitTime, waited));
        this.key = key;
    }

    /** Not acquired for another reason, such as an interrupt while waiting. */
    public LockNotAcquiredException(String key, String message) {
        super(message);
        this.key = key;
    }

    private static String busyMessage(String key, Duration waitTime, Duration waited) {
        if (waitTime == null || waitTime.isZero()) {
            return "lock '" + key + "' is busy: another owner holds it (one attempt, as the wait time is 0 ms; set a"
                    + " wait time to wait for it, or use tryAcquire or onLocked = SKIP to handle a busy key)";
        }
        return "lock '" + key + "' is busy: another owner held it for the whole wait time of "
                + Durations.readable(waitTime) + " (waited " + Durations.readable(waited)
                + "; raise the wait time to wait longer, or use tryAcquire or onLocked = SKIP to handle a busy key)";
    }

    /** The key that could not be acquired. */
    public String key() {
        return key;
    }
}
