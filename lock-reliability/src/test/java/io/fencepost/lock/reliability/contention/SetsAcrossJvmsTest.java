package io.fencepost.lock.reliability.contention;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.reliability.support.ChildJvm;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sets of keys across processes: two JVMs of four threads each take random overlapping sets of 2 or 3 of 10 keys
 * together, in random orders, for a minute ({@code -Dfencepost.sets.seconds} changes that). No call outlasts its
 * wait time (no deadlock), every release finds all the leases of its set still its own (none was taken over), and
 * the store's own history, written by a trigger in each lock statement's transaction with the database clock, shows
 * every key held by at most one lease at a time and its tokens increasing in grant order.
 */
@Tag("full")
class SetsAcrossJvmsTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private static final long SECONDS = Long.getLong("fencepost.sets.seconds", 60);

    private static final String HISTORY_SQL = """
            CREATE TABLE set_history (
                id            bigserial PRIMARY KEY,
                op            text        NOT NULL, -- grant | renew | end
                lock_key      text        NOT NULL,
                fencing_token bigint      NOT NULL,
                acquired_at   timestamptz,
                expires_at    timestamptz,
                at            timestamptz NOT NULL DEFAULT clock_timestamp()
            );
            CREATE INDEX set_history_lease ON set_history (lock_key, fencing_token, op);
            CREATE FUNCTION set_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP IN ('UPDATE', 'DELETE') AND (TG_OP = 'DELETE' OR OLD.fencing_token <> NEW.fencing_token) THEN
                    INSERT INTO set_history (op, lock_key, fencing_token, expires_at)
                    VALUES ('end', OLD.lock_key, OLD.fencing_token, OLD.expires_at);
                END IF;
                IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND OLD.fencing_token <> NEW.fencing_token) THEN
                    INSERT INTO set_history (op, lock_key, fencing_token, acquired_at, expires_at)
                    VALUES ('grant', NEW.lock_key, NEW.fencing_token, NEW.acquired_at, NEW.expires_at);
                ELSIF TG_OP = 'UPDATE' AND OLD.expires_at <> NEW.expires_at THEN
                    INSERT INTO set_history (op, lock_key, fencing_token, expires_at)
                    VALUES ('renew', NEW.lock_key, NEW.fencing_token, NEW.expires_at);
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER set_history_record AFTER INSERT OR UPDATE OR DELETE ON distributed_lock
                FOR EACH ROW EXECUTE FUNCTION set_history_record();
            """;

    /**
     * Each grant with the end of its lease by the store's clock (its removal or replacement, or its last confirmed
     * expiry if that came first), next to the grant of the same key before it: a grant that starts before the one
     * before it ended, or whose token is not higher, is a violation. A grant starts when its statement wrote the row
     * (the trigger's clock), as the randomized checker counts it: a statement may read the clock for its lease before
     * it waits for a release in flight to commit, so the lease's own {@code acquired_at} can precede that release.
     */
    private static final String VIOLATIONS_SQL = """
            WITH grants AS (
                SELECT g.lock_key, g.fencing_token, g.at AS started_at,
                       least(coalesce((SELECT min(e.at) FROM set_history e
                                        WHERE e.op = 'end' AND e.lock_key = g.lock_key
                                          AND e.fencing_token = g.fencing_token), 'infinity'),
                             greatest(g.expires_at, (SELECT max(r.expires_at) FROM set_history r
                                                      WHERE r.op = 'renew' AND r.lock_key = g.lock_key
                                                        AND r.fencing_token = g.fencing_token))) AS ended_at
                  FROM set_history g
                 WHERE g.op = 'grant'
            ), ordered AS (
                SELECT lock_key, fencing_token, started_at,
                       lag(ended_at) OVER w AS previous_end, lag(fencing_token) OVER w AS previous_token
                  FROM grants
                WINDOW w AS (PARTITION BY lock_key ORDER BY started_at, fencing_token)
            )
            SELECT lock_key || ': token ' || fencing_token || ' granted at ' || started_at
                   || ' after token ' || previous_token || ' that ended at ' || previous_end
              FROM ordered
             WHERE started_at < previous_end OR fencing_token <= previous_token
             LIMIT 20
            """;

    @Test
    void overlappingSetsInTwoJvmsNeverDeadlockNorShareAKeyAndEveryKeysTokensIncrease() throws Exception {
        PostgresLockManager.create(db.dataSource()).close();
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(HISTORY_SQL);
        }
        List<String> lines = new ArrayList<>();
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (String process : List.of("jvm-1", "jvm-2")) {
                children.add(ChildJvm.start(
                        SetWorker.class,
                        ProcessBuilder.Redirect.INHERIT,
                        db.jdbcUrl(),
                        process,
                        "4",
                        Long.toString(SECONDS),
                        "10"));
            }
            for (ChildJvm child : children) {
                for (String line = child.readLine(); line != null; line = child.readLine()) {
                    lines.add(line);
                }
                assertThat(child.waitFor(SECONDS + 60, TimeUnit.SECONDS))
                        .as("the worker ended")
                        .isTrue();
            }
        } finally {
            children.forEach(ChildJvm::close);
        }

        assertThat(lines).filteredOn(line -> line.startsWith("PROBLEM")).isEmpty();
        List<String> done =
                lines.stream().filter(line -> line.startsWith("DONE")).toList();
        assertThat(done).as("both workers reported").hasSize(2);
        long sections = done.stream()
                .mapToLong(line -> Long.parseLong(line.replaceAll(".*sections=(\\d+).*", "$1")))
                .sum();
        assertThat(sections).as("sets held (at least 10 per second)").isGreaterThanOrEqualTo(10 * SECONDS);
        List<String> violations = new ArrayList<>();
        long grants;
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            try (ResultSet rows = statement.executeQuery(VIOLATIONS_SQL)) {
                while (rows.next()) {
                    violations.add(rows.getString(1));
                }
            }
            try (ResultSet rows = statement.executeQuery("SELECT count(*) FROM set_history WHERE op = 'grant'")) {
                rows.next();
                grants = rows.getLong(1);
            }
        }
        System.out.printf("%d sets held, %d grants in the store's history%n", sections, grants);
        assertThat(grants).as("grants of the history").isGreaterThanOrEqualTo(2 * sections);
        assertThat(violations)
                .as("overlaps and token regressions in %d grants", grants)
                .isEmpty();
    }
}
