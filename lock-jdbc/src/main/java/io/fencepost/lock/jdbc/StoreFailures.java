package io.fencepost.lock.jdbc;

import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.internal.Durations;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Turns a JDBC failure into a {@link LockStoreException} that names the operation and the fix, and no secret. */
final class StoreFailures {

    private static final String REDACTED = "<owner token>";

    private StoreFailures() {}

    /** The property that bounds a lock call, named in every message about a bound that fired. */
    private static final String TIMEOUT_PROPERTY = "fencepost.jdbc.statement-timeout";

    /** Where a lock call failed: while waiting for a connection, or on the connection it got. */
    enum Phase {
        CONNECTION_WAIT,
        STATEMENT
    }

    /**
     * @param action what was attempted, such as {@code acquire lock 'k'}
     * @param secrets owner tokens (in any form) that must not appear in the message or the cause
     */
    static LockStoreException translate(
            String action, SQLException failure, Duration statementTimeout, List<String> secrets) {
        return failed(
                action, reason(failure, Phase.STATEMENT, statementTimeout, Duration.ZERO, secrets), failure, secrets);
    }

    /** The exception for {@code action}, which failed for {@code reason} (as {@link #reason} says it). */
    static LockStoreException failed(String action, String reason, SQLException failure, List<String> secrets) {
        return new LockStoreException(
                "could not " + action + ": " + reason,
                containsSecret(failure, secrets) ? redacted(failure, secrets) : failure);
    }

    /** The exception for {@code action} when no connection came within the statement timeout. */
    static LockStoreException noConnection(String action, Duration statementTimeout) {
        return new LockStoreException("could not " + action + ": " + noConnectionReason(statementTimeout));
    }

    /** Why a call got no connection: the bound that fired, and what to check. */
    static String noConnectionReason(Duration statementTimeout) {
        return "no connection from the DataSource within the statement timeout of "
                + Durations.readable(statementTimeout) + " (" + TIMEOUT_PROPERTY
                + ", which bounds the wait for a connection too): the database is unreachable or the pool is"
                + " exhausted; check the database connection and the pool's size";
    }

    /**
     * Why {@code failure} ended a call, with the fix and the bound that fired, never a secret; no key.
     *
     * @param phase where it failed
     * @param waited how long the call waited for its connection before the statement
     */
    static String reason(
            SQLException failure, Phase phase, Duration statementTimeout, Duration waited, List<String> secrets) {
        String state = failure.getSQLState();
        return "the lock store failed (" + (state == null ? "no SQLState" : "SQLState " + state) + "): "
                + redact(String.valueOf(failure.getMessage()), secrets) + "; "
                + (phase == Phase.CONNECTION_WAIT
                        ? "the DataSource gave no connection (the pool's own wait or the connection attempt ended"
                                + " first): check the database connection and the pool (statement timeout "
                                + Durations.readable(statementTimeout) + ", which bounds the wait for a connection"
                                + " too)"
                        : timedOut(failure) ? noAnswerHint(statementTimeout, waited) : hint(state, statementTimeout));
    }

    /**
     * Whether {@code failure} says the database could not be reached (a broken or timed-out connection, a server
     * shutting down), rather than answering with an error.
     */
    static boolean unreachable(SQLException failure) {
        String state = failure.getSQLState();
        return state == null || state.startsWith("08") || state.startsWith("57P") || timedOut(failure);
    }

    /** The driver gave up reading: the network timeout, which is the statement timeout, fired. */
    private static boolean timedOut(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static String noAnswerHint(Duration statementTimeout, Duration waited) {
        return "the database did not answer within the statement timeout of " + Durations.readable(statementTimeout)
                + " (" + TIMEOUT_PROPERTY + ")"
                + (waited.toMillis() > 0
                        ? ", of which " + Durations.readable(waited) + " went to waiting for a connection"
                        : "")
                + ": check the database connection and its load, or raise the statement timeout";
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
