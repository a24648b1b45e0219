package io.fencepost.lock.jdbc;

/** Fencepost's lock table or sequence is missing, misshapen or could not be created; the message says what to do. */
public class LockSchemaException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** The lock table the problem is about. */
    private final String tableName;

    public LockSchemaException(String tableName, String message, Throwable cause) {
        super(message, cause);
        this.tableName = tableName;
    }

    public LockSchemaException(String tableName, String message) {
        this(tableName, message, null);
    }

    /** The lock table the problem is about. */
    public String tableName() {
        return tableName;
    }
}
