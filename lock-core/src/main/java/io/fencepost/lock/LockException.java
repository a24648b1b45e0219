package io.fencepost.lock;

/** Base class of the library's exceptions; all are unchecked. */
public class LockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public LockException(String message) {
        super(message);
    }

    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
