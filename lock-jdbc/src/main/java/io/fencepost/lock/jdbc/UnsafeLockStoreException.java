package io.fencepost.lock.jdbc;

/**
 * The database behind the lock table cannot keep locks safe (it is not PostgreSQL, it is read-only, or its advisory
 * locks do not lock), so fencepost refuses to start on it; the message names what was seen and what to change.
 */
public class UnsafeLockStoreException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public UnsafeLockStoreException(String message, Throwable cause) {
        super(message, cause);
    }

    public UnsafeLockStoreException(String message) {
        this(message, null);
    }
}
