package io.fencepost.lock.jdbc;

import java.util.List;

/**
 * Another Fencepost lock table of the same application is in use in the database, so this manager's locks would not
 * exclude the other instances' (a lock taken in two tables is no lock); the message names both tables and what to
 * change.
 */
public class LockTableSplitException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String tableName;

    private final String applicationName;

    private final List<String> otherTables;

    public LockTableSplitException(String tableName, String applicationName, List<String> otherTables, String message) {
        super(message);
        this.tableName = tableName;
        this.applicationName = applicationName;
        this.otherTables = List.copyOf(otherTables);
    }

    /** The lock table this manager was configured with. */
    public String tableName() {
        return tableName;
    }

    /** The application whose use was looked for, or null when anyone's counted. */
    public String applicationName() {
        return applicationName;
    }

    /** The other lock tables in use, as {@code schema.table}. */
    public List<String> otherTables() {
        return otherTables;
    }
}
