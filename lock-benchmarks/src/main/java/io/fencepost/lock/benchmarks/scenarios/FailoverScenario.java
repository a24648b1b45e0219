package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.LeaderElection;
import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.jdbc.PostgresLockManager;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.springframework.integration.util.UUIDConverter;

/**
 * Leader failover: how long a group is without a leader when its leader steps down ({@code yieldLeadership()},
 * {@code close()}) with another candidate waiting, and when the leader's process is killed with SIGKILL (its lease is
 * then abandoned, never released, so the next grant waits for the lease to expire). Fencepost's
 * {@code LeaderElection} next to Spring Integration's {@code LockRegistryLeaderInitiator} over a
 * {@code JdbcLockRegistry}, each candidate its own application instance (its own manager or repository); the killed
 * leader runs in a second JVM.
 */
public final class FailoverScenario {

    /** Time for a candidate just started to be waiting for the lease (it has asked the store and found it taken). */
    private static final Duration SETTLE = Duration.ofMillis(500);

    /** How long a graceful hand-over may take before it counts as not having happened. */
    private static final Duration HAND_OVER_LIMIT = Duration.ofSeconds(5);

    private final Harness harness;

    private final Settings settings;

    public FailoverScenario(Harness harness) {
        this.harness = harness;
        this.settings = harness.settings();
    }

    public List<FailoverResult> run() throws Exception {
        List<FailoverResult> results = new ArrayList<>();
        for (Library library : harness.libraries(Library.FENCEPOST, Library.SPRING_INTEGRATION)) {
            results.add(yields(library));
            results.add(closes(library));
            results.add(kills(library));
        }
        return results;
    }

    private Candidate candidate(Library library, String group) {
        return library == Library.FENCEPOST
                ? Candidate.fencepost(harness.context(), group, settings.failoverLeaseTime())
                : Candidate.springIntegration(harness.context(), group, settings.failoverLeaseTime());
    }

    /** Two candidates; the leader yields, the other takes over, and so on, alternating. The first is a warm-up. */
    private FailoverResult yields(Library library) throws Exception {
        String group = "bench-" + library.id() + "-yield";
        List<Double> millis = new ArrayList<>();
        int attempts = 0;
        try (Candidate a = candidate(library, group);
                Candidate b = candidate(library, group)) {
            a.start();
            require(a.awaitGrant(Duration.ofSeconds(30)), library, "the first candidate was not granted");
            b.start();
            Candidate leader = a;
            Candidate other = b;
            for (int i = 0; i <= settings.handOvers(); i++) {
                // The candidate that yielded last competes again only after the yield pause.
                sleep(LeaderElection.YIELD_PAUSE.plus(SETTLE));
                a.forgetGrants();
                b.forgetGrants();
                long t0 = System.nanoTime();
                leader.yieldLeadership();
                Long granted = other.awaitGrant(HAND_OVER_LIMIT);
                if (i > 0) {
                    attempts++;
                }
                if (granted == null) {
                    harness.log("failover/yield " + library.id() + ": no hand-over within "
                            + HAND_OVER_LIMIT.toSeconds() + " s (the candidate that yielded is "
                            + (leader.isLeader() ? "" : "not ") + "leader)");
                    if (!leader.isLeader() && !other.isLeader()) {
                        break; // nobody leads: something is wrong; the figures so far stand
                    }
                    if (other.isLeader()) {
                        Candidate swap = leader;
                        leader = other;
                        other = swap;
                    }
                    continue;
                }
                double ms = (granted - t0) / 1e6;
                if (i > 0) {
                    millis.add(ms);
                }
                log("yield", library, i, ms);
                Candidate swap = leader;
                leader = other;
                other = swap;
            }
        }
        return new FailoverResult(
                library, "yield", unbox(millis), new double[0], attempts, settings.failoverLeaseTime());
    }

    /** A new candidate joins and waits; the leader closes; the new one takes over, and so on. First is a warm-up. */
    private FailoverResult closes(Library library) throws Exception {
        String group = "bench-" + library.id() + "-close";
        List<Double> millis = new ArrayList<>();
        int attempts = 0;
        Candidate leader = candidate(library, group);
        try {
            leader.start();
            require(leader.awaitGrant(Duration.ofSeconds(30)), library, "the first candidate was not granted");
            for (int i = 0; i <= settings.handOvers(); i++) {
                Candidate next = candidate(library, group);
                next.start();
                sleep(SETTLE);
                long t0 = System.nanoTime();
                leader.close();
                leader = next;
                Long granted = next.awaitGrant(HAND_OVER_LIMIT.plus(settings.failoverLeaseTime()));
                if (i > 0) {
                    attempts++;
                }
                if (granted == null) {
                    harness.log("failover/close " + library.id() + ": no hand-over in time");
                    break;
                }
                double ms = (granted - t0) / 1e6;
                if (i > 0) {
                    millis.add(ms);
                }
                log("close", library, i, ms);
            }
        } finally {
            leader.close();
        }
        return new FailoverResult(
                library, "close", unbox(millis), new double[0], attempts, settings.failoverLeaseTime());
    }

    /** The leader runs in a second JVM, which is killed; a candidate here waits for the group. */
    private FailoverResult kills(Library library) throws Exception {
        String group = "bench-" + library.id() + "-kill";
        Duration lease = settings.failoverLeaseTime();
        List<Double> millis = new ArrayList<>();
        List<Double> left = new ArrayList<>();
        int attempts = 0;
        for (int i = 0; i < settings.kills(); i++) {
            try (ChildJvm child = new ChildJvm(ChildJvm.arguments(harness))) {
                child.send("LEAD " + library.id() + " " + group + " " + lease.toMillis());
                child.expect("LEADER");
                try (Candidate waiting = candidate(library, group)) {
                    waiting.start();
                    sleep(SETTLE);
                    attempts++;
                    long t0 = System.nanoTime();
                    child.kill();
                    double leftAtKill = leaseLeftMillis(library, group, t0);
                    Long granted = waiting.awaitGrant(lease.plus(Duration.ofSeconds(10)));
                    child.awaitExit();
                    if (granted == null) {
                        harness.log("failover/kill " + library.id() + ": no new leader within the lease time + 10 s");
                        continue;
                    }
                    double ms = (granted - t0) / 1e6;
                    millis.add(ms);
                    left.add(leftAtKill);
                    harness.log("failover/kill %s %d/%d: %.0f ms to the next grant; %.0f ms of the lease were left"
                            .formatted(library.id(), i + 1, settings.kills(), ms, leftAtKill));
                }
            }
        }
        return new FailoverResult(library, "kill", unbox(millis), unbox(left), attempts, lease);
    }

    /**
     * What was left of the group's lease when the leader was killed at {@code killedAt}, by the database's clock: read
     * just after the kill (a renewal the dead process had already sent may still land until then) and moved back by
     * the time since the kill.
     */
    private double leaseLeftMillis(Library library, String group, long killedAt) {
        String sql;
        String key;
        if (library == Library.FENCEPOST) {
            sql = "SELECT EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000 FROM "
                    + PostgresLockManager.DEFAULT_TABLE_NAME + " WHERE lock_key = ?";
            key = Candidate.fencepostKey(group);
        } else {
            // Spring Integration keeps UTC wall-clock times without a zone, computed by the application.
            sql = "SELECT EXTRACT(EPOCH FROM (EXPIRED_AFTER - (clock_timestamp() AT TIME ZONE 'UTC'))) * 1000"
                    + " FROM INT_LOCK WHERE LOCK_KEY = ? AND REGION = 'DEFAULT'";
            key = UUIDConverter.getUUID(group).toString();
        }
        try (Connection connection = harness.database().connect();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, key);
            long before = System.nanoTime();
            try (ResultSet rows = statement.executeQuery()) {
                long after = System.nanoTime();
                if (!rows.next()) {
                    return Double.NaN;
                }
                return rows.getDouble(1) + ((before + after) / 2 - killedAt) / 1e6;
            }
        } catch (Exception e) {
            harness.log("could not read the lease of group " + group + ": " + e);
            return Double.NaN;
        }
    }

    private void log(String how, Library library, int i, double ms) {
        harness.log("failover/%s %s %s: %.1f ms to the next grant"
                .formatted(how, library.id(), i == 0 ? "warm-up" : i + "/" + settings.handOvers(), ms));
    }

    private static void require(Long granted, Library library, String what) {
        if (granted == null) {
            throw new IllegalStateException(library.id() + ": " + what);
        }
    }

    private static void sleep(Duration d) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(d.toNanos());
    }

    private static double[] unbox(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).toArray();
    }
}
