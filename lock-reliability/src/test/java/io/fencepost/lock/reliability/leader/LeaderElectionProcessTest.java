package io.fencepost.lock.reliability.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Leader election with three candidate processes on one PostgreSQL: a leader killed with {@code kill -9} or frozen
 * with SIGSTOP is replaced within the lease time plus 1 s; a frozen leader is told it was deposed once it runs again;
 * a yield hands over in under 50 ms at the median; and, by the store's own clock (a trigger records every write of
 * the lease row), no term starts before the previous one ended, and terms increase.
 */
@Tag("full")
class LeaderElectionProcessTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private static final long LEASE_MS = 2_000;

    private static final Duration REPLACED_WITHIN = Duration.ofMillis(LEASE_MS + 1_000);

    private record Event(String candidate, String kind, long term, long atNanos) {}

    /** Every event of every candidate, in the order the test saw them. */
    private final List<Event> events = new CopyOnWriteArrayList<>();

    /** Where the next search of {@link #events} starts: events before it were dealt with. */
    private int seen;

    private final List<Candidate> candidates = new ArrayList<>();

    private String group;

    /** A candidate process, its input and a thread that turns its output into events. */
    private final class Candidate {
        final String name;
        final Process process;
        final Writer input;

        Candidate(String name) throws IOException {
            this.name = name;
            this.process = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            CandidateProcess.class.getName(),
                            db.jdbcUrl(),
                            group,
                            Long.toString(LEASE_MS),
                            name)
                    // kept for a failed run's diagnosis
                    .redirectError(Path.of("target", "leader-candidate-" + name + ".log")
                            .toFile())
                    .start();
            this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            Thread reader = new Thread(this::read, "events-of-" + name);
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    String[] parts = line.split(" ");
                    long term = parts.length > 1 ? Long.parseLong(parts[1]) : 0;
                    events.add(new Event(name, parts[0], term, System.nanoTime()));
                }
            } catch (IOException e) {
                // the process was killed
            }
        }

        void yieldLeadership() throws IOException {
            input.write("YIELD\n");
            input.flush();
        }

        void signal(String signal) throws Exception {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0)
                    .as("kill -%s %s", signal, name)
                    .isTrue();
        }
    }

    @BeforeEach
    void auditTheLeaseRow() {
        PostgresLockManager.create(db.dataSource()).close();
        group = "process-test-" + UUID.randomUUID();
        db.execute("""
                CREATE TABLE IF NOT EXISTS leader_audit (
                    id bigserial PRIMARY KEY, op text NOT NULL, lock_key text NOT NULL, token bigint NOT NULL,
                    acquired_at timestamptz, expires_at timestamptz, at timestamptz NOT NULL);
                CREATE OR REPLACE FUNCTION leader_audit() RETURNS trigger AS $$
                BEGIN
                    IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.fencing_token <> NEW.fencing_token) THEN
                        -- a release that hands the lease to a registered candidate ends the term in the statement
                        -- that starts the next one: it ends when the next begins, by that statement's clock
                        INSERT INTO leader_audit (op, lock_key, token, at)
                        VALUES ('end', OLD.lock_key, OLD.fencing_token,
                                CASE WHEN TG_OP = 'UPDATE' AND OLD.expires_at > NEW.acquired_at
                                     THEN NEW.acquired_at ELSE clock_timestamp() END);
                    END IF;
                    IF TG_OP = 'DELETE' THEN
                        RETURN OLD;
                    END IF;
                    INSERT INTO leader_audit (op, lock_key, token, acquired_at, expires_at, at)
                    VALUES (CASE WHEN TG_OP = 'INSERT' OR OLD.fencing_token <> NEW.fencing_token
                                 THEN 'grant' ELSE 'renew' END,
                            NEW.lock_key, NEW.fencing_token, NEW.acquired_at, NEW.expires_at, clock_timestamp());
                    RETURN NEW;
                END $$ LANGUAGE plpgsql;
                DROP TRIGGER IF EXISTS leader_audit ON distributed_lock;
                CREATE TRIGGER leader_audit AFTER INSERT OR UPDATE OR DELETE ON distributed_lock
                    FOR EACH ROW EXECUTE FUNCTION leader_audit();
                """);
    }

    @AfterEach
    void stopCandidates() {
        candidates.forEach(candidate -> candidate.process.destroyForcibly());
    }

    private void start(int count) throws Exception {
        for (int i = 1; i <= count; i++) {
            candidates.add(new Candidate("c" + i));
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        events.stream().filter(e -> e.kind().equals("STARTED")).count() == count);
    }

    /** The first event after those already dealt with that {@code wanted} accepts, within {@code within}. */
    private Event next(Predicate<Event> wanted, Duration within) {
        return await().atMost(within)
                .pollInterval(Duration.ofMillis(1))
                .until(
                        () -> {
                            for (int i = seen; i < events.size(); i++) {
                                if (wanted.test(events.get(i))) {
                                    seen = i + 1;
                                    return events.get(i);
                                }
                            }
                            return null;
                        },
                        Objects::nonNull);
    }

    private Event grantOtherThan(String candidate, Duration within) {
        return next(e -> e.kind().equals("GRANTED") && !e.candidate().equals(candidate), within);
    }

    private Candidate named(String name) {
        return candidates.stream().filter(c -> c.name.equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aKilledOrFrozenLeaderIsReplacedWithinTheLeasePlusOneSecondAndTermsNeverOverlapInStoreTime() throws Exception {
        start(3);
        Event first = next(e -> e.kind().equals("GRANTED"), Duration.ofSeconds(30));

        named(first.candidate()).signal("KILL");
        long killed = System.nanoTime();
        Event second = grantOtherThan(first.candidate(), REPLACED_WITHIN.plusSeconds(5));
        assertThat(Duration.ofNanos(second.atNanos() - killed)).isLessThan(REPLACED_WITHIN);
        assertThat(second.term()).isGreaterThan(first.term());

        Candidate frozen = named(second.candidate());
        frozen.signal("STOP");
        long stopped = System.nanoTime();
        Event third = grantOtherThan(second.candidate(), REPLACED_WITHIN.plusSeconds(5));
        assertThat(Duration.ofNanos(third.atNanos() - stopped)).isLessThan(REPLACED_WITHIN);
        assertThat(third.term()).isGreaterThan(second.term());
        frozen.signal("CONT");
        // Frozen, its watchdog could not run; running again, it learns at once that its deadline has passed.
        next(
                e -> e.candidate().equals(second.candidate())
                        && e.kind().equals("REVOKED")
                        && e.term() == second.term(),
                Duration.ofSeconds(10));

        assertTermsFollowOneAnotherInStoreTime(3);
    }

    @Test
    void aYieldHandsLeadershipToAnotherCandidateInUnder50MillisecondsAtTheMedian() throws Exception {
        start(3);
        Event leader = next(e -> e.kind().equals("GRANTED"), Duration.ofSeconds(30));
        List<Long> handOverMicros = new ArrayList<>();
        for (int round = 0; round < 21; round++) {
            // Pacing, not an assertion: the previous yielder rejoins after its 1 s pause, so two candidates wait.
            Thread.sleep(1_200);
            long asked = System.nanoTime();
            named(leader.candidate()).yieldLeadership();
            Event next = grantOtherThan(leader.candidate(), Duration.ofSeconds(10));
            handOverMicros.add(TimeUnit.NANOSECONDS.toMicros(next.atNanos() - asked));
            assertThat(next.term()).isGreaterThan(leader.term());
            leader = next;
        }

        List<Long> sorted = handOverMicros.stream().sorted().toList();
        long median = sorted.get(sorted.size() / 2);
        System.out.printf(
                "yield hand-over over 21 rounds: median %d µs, min %d µs, max %d µs%n",
                median, sorted.get(0), sorted.get(sorted.size() - 1));
        assertThat(Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(median))).isLessThan(Duration.ofMillis(50));
        assertTermsFollowOneAnotherInStoreTime(22);
    }

    /** By the store's clock: every term starts after the previous one ended, and terms increase in grant order. */
    private void assertTermsFollowOneAnotherInStoreTime(int atLeast) throws SQLException {
        record Term(long token, Instant acquiredAt, Instant lastExpiry, Instant endedAt) {
            Instant end() {
                return endedAt != null && endedAt.isBefore(lastExpiry) ? endedAt : lastExpiry;
            }
        }
        Map<Long, Instant[]> byToken = new TreeMap<>();
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows =
                        statement.executeQuery("SELECT op, token, acquired_at, expires_at, at FROM leader_audit"
                                + " WHERE lock_key = 'fencepost:leader:" + group + "' ORDER BY id")) {
            while (rows.next()) {
                Instant[] term = byToken.computeIfAbsent(rows.getLong(2), t -> new Instant[3]);
                switch (rows.getString(1)) {
                    case "grant" -> {
                        term[0] = instant(rows, 3);
                        term[1] = instant(rows, 4);
                    }
                    case "renew" -> term[1] = max(term[1], instant(rows, 4));
                    default -> term[2] = term[2] == null ? instant(rows, 5) : term[2];
                }
            }
        }
        List<Term> terms = byToken.entrySet().stream()
                .map(e -> new Term(e.getKey(), e.getValue()[0], e.getValue()[1], e.getValue()[2]))
                .toList();
        assertThat(terms).hasSizeGreaterThanOrEqualTo(atLeast);
        for (int i = 1; i < terms.size(); i++) {
            Term earlier = terms.get(i - 1);
            Term later = terms.get(i);
            assertThat(later.acquiredAt())
                    .as("term %d started after term %d ended", later.token(), earlier.token())
                    .isAfterOrEqualTo(earlier.end());
        }
    }

    private static Instant instant(ResultSet rows, int column) throws SQLException {
        OffsetDateTime value = rows.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    private static Instant max(Instant a, Instant b) {
        return a == null || (b != null && b.isAfter(a)) ? b : a;
    }
}
