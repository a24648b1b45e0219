package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.LockStoreException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class StoreFailuresTest {

    @Test
    void namesTheOperationTheSqlStateAndTheFix() {
        LockStoreException e = translate(
                "acquire lock 'k'",
                new SQLException("Connection refused", "08001"),
                UUID.randomUUID().toString());

        assertThat(e)
                .hasMessage("could not acquire lock 'k': the lock store failed (SQLState 08001): Connection refused;"
                        + " check the database connection (statement timeout 5 s)");
    }

    @Test
    void aMissingTableTellsHowToCreateIt() {
        LockStoreException e = translate(
                "release lock 'k'", new SQLException("relation \"distributed_lock\" does not exist", "42P01"), "owner");

        assertThat(e.getMessage()).contains("SQLState 42P01", "SchemaMode.CREATE", "schema-postgresql.sql");
    }

    @Test
    void ownerTokensAreRedactedFromTheMessageAndTheCause() {
        String token = UUID.randomUUID().toString();
        SQLException failure = new SQLException("Failing row contains (k, " + token + ", h).", "23502");

        LockStoreException e = translate("acquire lock 'k'", failure, token);

        assertThat(e.getMessage()).doesNotContain(token).contains("<owner token>");
        assertThat(e.getCause()).isInstanceOf(SQLException.class).isNotSameAs(failure);
        assertThat(e.getCause().getMessage()).doesNotContain(token);
        assertThat(((SQLException) e.getCause()).getSQLState()).isEqualTo("23502");
    }

    @Test
    void aCauseWithoutSecretsIsKept() {
        SQLException failure = new SQLException("canceling statement due to statement timeout", "57014");

        LockStoreException e = StoreFailures.translate(
                "acquire lock 'k'", failure, Duration.ofSeconds(1), StoreFailures.secretsOf("owner"));

        assertThat(e.getCause()).isSameAs(failure);
        assertThat(e.getMessage()).contains("statement timeout of 1 s");
    }

    @Test
    void aStatementTheDatabaseDidNotAnswerNamesTheStatementTimeoutAndTheWaitForItsConnection() {
        SQLException failure = new SQLException(
                "An I/O error occurred while sending to the backend.",
                "08006",
                new java.net.SocketTimeoutException("Read timed out"));

        String reason = StoreFailures.reason(
                failure, StoreFailures.Phase.STATEMENT, Duration.ofSeconds(5), Duration.ofMillis(1200), List.of());

        assertThat(reason)
                .isEqualTo(
                        "the lock store failed (SQLState 08006): An I/O error occurred while sending to the backend.;"
                                + " the database did not answer within the statement timeout of 5 s"
                                + " (fencepost.jdbc.statement-timeout), of which 1.2 s went to waiting for a connection: check"
                                + " the database connection and its load, or raise the statement timeout");
        assertThat(StoreFailures.unreachable(failure)).isTrue();
    }

    @Test
    void anErrorTheDatabaseAnsweredIsNotAnOutage() {
        assertThat(StoreFailures.unreachable(new SQLException("relation does not exist", "42P01")))
                .isFalse();
        assertThat(StoreFailures.unreachable(new SQLException("Connection refused", "08001")))
                .isTrue();
    }

    /** Translates {@code failure} as a statement with a five-second timeout would, keeping {@code ownerToken} out. */
    private static LockStoreException translate(String action, SQLException failure, String ownerToken) {
        return StoreFailures.translate(action, failure, Duration.ofSeconds(5), StoreFailures.secretsOf(ownerToken));
    }
}
