package io.fencepost.lock.jdbc;

import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.internal.Durations;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Turns a JDBC failure into a {@link LockStoreException} that names the operation and the fix, and no secret. */
final class StoreFailures {

    private static final String REDACTED = "<owner token>";

    private StoreFailures() {}

    /**
     * @param action what was attempted, such as {@code acquire lock 'k'}
     * @param secrets owner tokens (in any form) that must not appear in the message or the cause
     */
    static LockStoreException translate(
            String action, SQLException failure, Duration statementTimeout, List<String> secrets) {
        String state = failure.getSQLState();
        String message = "could not " + action + ": the lock store failed ("
                + (state == null ? "no SQLState" : "SQLState " + state) + "): "
                + redact(String.valueOf(failure.getMessage()), secrets) + "; " + hint(state, statementTimeout);
        return new LockStoreException(message, containsSecret(failure, secrets) ? redacted(failure, secrets) : failure);
    }

    private static String hint(String state, Duration statementTimeout) {
        if (state == null) {
            return "check the database connection and the DataSource's pool (statement timeout "
                    + Durations.readable(statementTimeout) + ")";
        }
        return switch (state) {
            case "42P01" ->
                "fencepost's lock table or sequence is missing: enable schema initialization"
                        + " (SchemaMode.CREATE, fencepost.jdbc.initialize-schema) or run schema-postgresql.sql"
                        + " from the lock-jdbc jar";
            case "42501" ->
                "grant the application's role SELECT, INSERT, UPDATE and DELETE on fencepost's table"
                        + " and USAGE on its sequence";
            case "42883" -> "fencepost needs PostgreSQL 13 or later";
            case "57014" ->
                "the statement did not finish within the statement timeout of " + Durations.readable(statementTimeout)
                        + ": check the database's load and locks, or raise the statement timeout";
            default ->
                state.startsWith("08")
                        ? "check the database connection (statement timeout " + Durations.readable(statementTimeout)
                                + ")"
                        : "check the database connection and fencepost's table";
        };
    }

    private static boolean containsSecret(Throwable failure, List<String> secrets) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && !redact(message, secrets).equals(message)) {
                return true;
            }
        }
        return false;
    }

    /** A copy of the failure without the secrets; the original, which holds them, is dropped. */
    private static SQLException redacted(SQLException failure, List<String> secrets) {
        SQLException copy = new SQLException(
                redact(String.valueOf(failure.getMessage()), secrets), failure.getSQLState(), failure.getErrorCode());
        copy.setStackTrace(failure.getStackTrace());
        return copy;
    }

    static String redact(String text, List<String> secrets) {
        String result = text;
        for (String secret : secrets) {
            if (secret != null && !secret.isEmpty()) {
                result = result.replace(secret, REDACTED);
            }
        }
        return result;
    }

    /** The owner tokens, as given and in the UUID form the statements use: what an error must never show. */
    static List<String> secretsOf(String... ownerTokens) {
        List<String> secrets = new ArrayList<>(2 * ownerTokens.length);
        for (String ownerToken : ownerTokens) {
            Objects.requireNonNull(ownerToken, "ownerToken");
            secrets.add(ownerToken);
            secrets.add(OwnerTokens.toUuid(ownerToken).toString());
        }
        return List.copyOf(secrets);
    }
}
