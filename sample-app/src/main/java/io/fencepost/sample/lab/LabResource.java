package io.fencepost.sample.lab;

import java.sql.Connection;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The lab's protected resource: a counter row per instance. Every accepted write bumps its version, so a writer
 * whose read saw an older version has overwritten someone else's update. With fencing on, reads and writes carry
 * the worker's fencing token and the row refuses any token lower than the highest it has seen; reading through
 * the fence matters, since it is what stops an older holder from writing over a newer one's read.
 */
final class LabResource {

    private static final String INIT_SQL = """
            INSERT INTO lab_resource (id) VALUES (:id) ON CONFLICT (id) DO NOTHING
            """;

    private static final String RESET_SQL = """
            UPDATE lab_resource SET value = 0, version = 0, last_writer = NULL, last_token = NULL WHERE id = :id
            """;

    private static final String READ_SQL = """
            SELECT value, version FROM lab_resource WHERE id = :id
            """;

    private static final String FENCED_READ_SQL = """
            UPDATE lab_resource SET fence = :token WHERE id = :id AND fence <= :token RETURNING value, version
            """;

    private static final String WRITE_SQL = """
            UPDATE lab_resource
               SET value = :value, version = version + 1, last_writer = :writer, last_token = :token
             WHERE id = :id
            RETURNING version - 1, version, value
            """;

    private static final String FENCED_WRITE_SQL = """
            UPDATE lab_resource
               SET value = :value, version = version + 1, last_writer = :writer, last_token = :token, fence = :token
             WHERE id = :id AND fence <= :token
            RETURNING version - 1, version, value
            """;

    private static final String STATE_SQL = """
            SELECT value, version, fence, last_writer, last_token FROM lab_resource WHERE id = :id
            """;

    private final JdbcClient jdbc;

    private final String id;

    LabResource(JdbcClient jdbc, String id) {
        this.jdbc = jdbc;
        this.id = id;
    }

    /** What a worker read: the value and the version it belongs to. */
    record Snapshot(long value, long version) {}

    /**
     * The row right after an accepted write.
     *
     * @param replaced the version the write replaced
     * @param version the row's version now: the writes it accepted since the reset
     * @param value the counter now
     */
    record Written(long replaced, long version, long value) {

        /** Accepted increments the counter does not show: the resource's own measure of lost updates. */
        long lostUpdates() {
            return Math.max(0, version - value);
        }
    }

    /** The whole row, for the page. */
    record State(long value, long version, long fence, String lastWriter, Long lastToken) {

        /** Accepted increments the counter does not show (as {@link Written#lostUpdates()}). */
        long lostUpdates() {
            return Math.max(0, version - value);
        }
    }

    /** The same resource, read and written in the transaction open on {@code transaction}. */
    LabResource in(Connection transaction) {
        return new LabResource(JdbcClient.create(new SingleConnectionDataSource(transaction, true)), id);
    }

    void init() {
        jdbc.sql(INIT_SQL).param("id", id).update();
    }

    void reset() {
        jdbc.sql(RESET_SQL).param("id", id).update();
    }

    /** Reads the counter; with fencing, also raises the fence to {@code token}, and is refused below it. */
    Optional<Snapshot> read(boolean fenced, long token) {
        return jdbc.sql(fenced ? FENCED_READ_SQL : READ_SQL)
                .param("id", id)
                .param("token", token)
                .query((rs, row) -> new Snapshot(rs.getLong(1), rs.getLong(2)))
                .optional();
    }

    /**
     * Writes the counter; with fencing, only if no higher token was seen.
     *
     * @return the row as the write left it, or empty when the write was refused
     */
    Optional<Written> write(boolean fenced, long token, String writer, long value) {
        return jdbc.sql(fenced ? FENCED_WRITE_SQL : WRITE_SQL)
                .param("id", id)
                .param("token", token)
                .param("writer", writer)
                .param("value", value)
                .query((rs, row) -> new Written(rs.getLong(1), rs.getLong(2), rs.getLong(3)))
                .optional();
    }

    State state() {
        return jdbc.sql(STATE_SQL)
                .param("id", id)
                .query((rs, row) ->
                        new State(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getString(4), (Long) rs.getObject(5)))
                .optional()
                .orElse(new State(0, 0, 0, null, null));
    }
}
