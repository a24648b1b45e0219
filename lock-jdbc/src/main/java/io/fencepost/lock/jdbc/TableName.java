package io.fencepost.lock.jdbc;

import java.util.regex.Pattern;

/**
 * A validated lock table name and the names derived from it. Validated once here, so that SQL text can
 * substitute it without any further escaping.
 *
 * @param table the table name: lower-case letters, digits and {@code _}, at most 48 characters
 */
record TableName(String table) {

    /** The default lock table name. */
    static final String DEFAULT = "distributed_lock";

    /**
     * Unquoted lower-case identifiers, short enough that the longest derived names ({@code _schema_history}, 15
     * characters after the table name, and a store's waiter channel, 15 around it) stay within PostgreSQL's
     * 63-character limit.
     */
    static final int MAX_LENGTH = 48;

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0," + (MAX_LENGTH - 1) + "}");

    TableName {
        if (table == null || !IDENTIFIER.matcher(table).matches()) {
            throw new IllegalArgumentException("table name '" + table
                    + "' is not a valid identifier: use lower-case letters, digits and _, starting with a letter"
                    + " or _, at most " + MAX_LENGTH + " characters");
        }
    }

    static TableName of(String table) {
        return new TableName(table);
    }

    /** The fencing token sequence. */
    String sequence() {
        return table + "_fence_seq";
    }

    /** The fencing guard's table: per resource, the highest fencing token accepted. */
    String fenceTable() {
        return table + "_fence";
    }

    /** The fence table as a quoted identifier. */
    String quotedFenceTable() {
        return '"' + fenceTable() + '"';
    }

    /** The unique index that makes a grant's fencing token a key of the lease row. */
    String tokenKey() {
        return table + "_token_key";
    }

    /** The token index as a quoted identifier. */
    String quotedTokenKey() {
        return '"' + tokenKey() + '"';
    }

    /** Fair mode's queue table. */
    String queueTable() {
        return table + "_queue";
    }

    /** The queue table as a quoted identifier. */
    String quotedQueueTable() {
        return '"' + queueTable() + '"';
    }

    /** The NOTIFY channel on which releases that someone waits for are announced. */
    String channel() {
        return "fencepost_" + table;
    }

    /**
     * The NOTIFY channel of one store's registered waiters, on which a release tells them that it handed them the
     * key; at most 63 characters, like every name here.
     */
    String waiterChannel(WaiterTag tag) {
        return channel() + "_" + tag.hex();
    }

    /** Fencepost's own Flyway history table, apart from the application's. */
    String schemaHistoryTable() {
        return table + "_schema_history";
    }

    /** The table as a quoted identifier: quoting keeps names that happen to be SQL keywords working. */
    String quotedTable() {
        return '"' + table + '"';
    }

    /** The sequence as a quoted identifier. */
    String quotedSequence() {
        return '"' + sequence() + '"';
    }

    /**
     * The first key of the two-key advisory lock that serializes token draws per lock key: derived from the
     * table so that two lock tables in one database do not contend, non-negative so that it renders as a
     * plain integer literal.
     */
    int advisoryClassId() {
        return ("fencepost:" + table).hashCode() & Integer.MAX_VALUE;
    }

    /**
     * The first key of the two-key session advisory lock that is a key's waiting queue ({@link PostgresLockQueue}):
     * negative, so that it never meets a draw lock.
     */
    int queueClassId() {
        return ("fencepost-queue:" + table).hashCode() | Integer.MIN_VALUE;
    }
}
