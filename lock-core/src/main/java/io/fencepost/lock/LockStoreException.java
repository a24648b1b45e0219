package io.fencepost.lock;

/** The lease store is unreachable or failing. Acquisition fails closed: no lease is granted. */
public class LockStoreException extends LockException {

    private static final long serialVersionUID = 1L;

    public LockStoreException(String message, Throwable cause) {
        super(message, cause);
    }

    public LockStoreException(String message) {
        super(message);
    }
}
