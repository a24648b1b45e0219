package io.fencepost.lock.reliability.checker;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaMode;
import io.fencepost.lock.reliability.cluster.PatroniCluster;
import io.fencepost.lock.reliability.support.Pools;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The checker's faults on a {@link PatroniCluster}: each is injected, held long enough to have its effect (a
 * failover, where it causes one), healed, and waited out until the cluster is healthy again; then the time from the
 * fault to the first grant after it is read from the store's history.
 *
 * <p>On an asynchronous cluster the first fault is the one that shows what asynchronous replication costs:
 * replication is stalled, the orchestrator takes a long lease that only the primary knows of, and the primary dies.
 * That grant is recorded in the clients' history like any worker's, so the analyzer sees it lost and the key granted
 * again while its holder still held it.
 */
final class ClusterFaults implements AutoCloseable {

    /** The key the orchestrator holds across the asynchronous failover: not the hot one, so workers wait for it. */
    private static final int HELD_KEY = 1;

    private static final Duration HELD_LEASE = Duration.ofSeconds(60);

    /** One fault and how long the key space went without a grant after it. */
    record Outage(Checker.Fault fault, String node, Instant at, Duration toFirstGrant) {}

    private final PatroniCluster cluster;

    private final String url;

    private final Random random;

    private final List<Checker.Fault> rotation;

    private final List<Outage> outages = new ArrayList<>();

    private final List<String> problems = new ArrayList<>();

    private final List<Held> held = new ArrayList<>();

    private HikariDataSource pool;

    private PostgresLockManager holder;

    private int next;

    private Instant crashedAt;

    /** A grant the orchestrator took (and was told about), for the clients' history. */
    private record Held(Lease lease, Instant grantedAt) {}

    ClusterFaults(PatroniCluster cluster, String url, Random random) {
        this.cluster = cluster;
        this.url = url;
        this.random = random;
        List<Checker.Fault> order = new ArrayList<>(List.of(
                Checker.Fault.CRASH_PRIMARY,
                Checker.Fault.PARTITION_PRIMARY,
                Checker.Fault.SWITCHOVER,
                Checker.Fault.FREEZE_PRIMARY,
                Checker.Fault.PARTITION_CLIENT,
                Checker.Fault.KILL_POSTMASTER,
                Checker.Fault.STALL_REPLICATION));
        if (cluster.replication() == PatroniCluster.Replication.ASYNCHRONOUS) {
            order.add(0, Checker.Fault.LOSE_UNREPLICATED_GRANTS);
        }
        this.rotation = List.copyOf(order);
    }

    /** The next cluster fault, in a fixed rotation: a short run still meets a failover and a partition first. */
    Checker.Fault next() {
        return rotation.get(next++ % rotation.size());
    }

    /**
     * Injects {@code fault} and returns when the cluster is healthy again (or, failing that, after a problem was
     * recorded).
     */
    void inject(Checker.Fault fault) throws IOException, InterruptedException {
        Instant at = Instant.now();
        crashedAt = null;
        String node;
        switch (fault) {
            case SWITCHOVER -> node = cluster.switchover();
            case KILL_POSTMASTER -> node = cluster.killPrimaryPostmaster();
            case CRASH_PRIMARY -> {
                node = cluster.crashPrimary();
                awaitNewPrimary(node);
            }
            case FREEZE_PRIMARY -> {
                node = cluster.freezePrimary();
                awaitNewPrimary(node);
            }
            case PARTITION_PRIMARY -> {
                node = cluster.partitionPrimaryFromMajority();
                at = Instant.now(); // cut off once the last link is cut: commits went on until then
                awaitNewPrimary(node);
            }
            case PARTITION_CLIENT -> {
                node = cluster.partitionClientFromPrimary(random.nextInt(cluster.clientHosts()));
                Thread.sleep(2_000 + random.nextInt(4_000));
            }
            case STALL_REPLICATION -> {
                node = cluster.stallReplication();
                Thread.sleep(1_000 + random.nextInt(3_000));
            }
            case LOSE_UNREPLICATED_GRANTS -> {
                node = loseUnreplicatedGrants();
                at = crashedAt; // the primary went on granting until then: its death is where the outage starts
            }
            default -> throw new IllegalArgumentException(fault + " is not a cluster fault");
        }
        Instant start = at;
        String where = node;
        cluster.heal();
        try {
            cluster.awaitHealthy(Duration.ofSeconds(120));
        } catch (IllegalStateException e) {
            problems.add("after " + fault + " of " + node + ": " + e.getMessage());
            return;
        }
        // After a failover, the outage lasts until the first grant on another node; otherwise until the first grant.
        Optional<String> oldPrimary = fault.failover || fault == Checker.Fault.SWITCHOVER
                ? Optional.of(cluster.address(node))
                : Optional.empty();
        firstGrantAfter(start, oldPrimary)
                .ifPresentOrElse(
                        first -> outages.add(new Outage(fault, where, start, Duration.between(start, first))),
                        () -> problems.add("no grant at all after " + fault + " of " + where + " at " + start));
    }

    /**
     * Asynchronous replication's failure, made certain: replication stalls, grants go on for a while on the primary
     * alone (the workers', and one the orchestrator holds for a minute), then the primary dies and a replica that
     * never received them is promoted.
     */
    private String loseUnreplicatedGrants() throws InterruptedException {
        String node = cluster.stallReplication();
        Thread.sleep(1_500);
        Lease lease = holder().acquire(
                        CheckerSchema.key(HELD_KEY),
                        LockOptions.builder()
                                .leaseTime(HELD_LEASE)
                                .waitTime(Duration.ofSeconds(10))
                                .renew(false)
                                .name("checker")
                                .build());
        held.add(new Held(lease, lease.expiresAt().minus(HELD_LEASE)));
        Thread.sleep(1_000);
        crashedAt = Instant.now();
        cluster.crashPrimary();
        awaitNewPrimary(node);
        return node;
    }

    private PostgresLockManager holder() {
        if (holder == null) {
            pool = Pools.hikari(url, "checker-orchestrator", 4, 3_000);
            holder = PostgresLockManager.builder(pool)
                    .tableName(CheckerSchema.LOCK_TABLE)
                    .schemaMode(SchemaMode.NONE)
                    .holderName("orchestrator@checker")
                    .build();
        }
        return holder;
    }

    /** Waits (up to a minute) until another node than {@code old} is primary. */
    private void awaitNewPrimary(String old) throws InterruptedException {
        long giveUp = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < giveUp) {
            Optional<String> primary = cluster.primary();
            if (primary.isPresent() && !primary.get().equals(old)) {
                return;
            }
            Thread.sleep(250);
        }
        problems.add("no failover away from " + old + " within a minute: " + cluster.describe());
    }

    private Optional<Instant> firstGrantAfter(Instant at, Optional<String> notOn) {
        try (Connection connection = DriverManager.getConnection(url + "&ApplicationName=checker-admin");
                PreparedStatement select = connection.prepareStatement("SELECT min(at) FROM checker_store_event"
                        + " WHERE op = 'grant' AND at > ? AND node IS DISTINCT FROM ?::inet")) {
            select.setTimestamp(1, Timestamp.from(at));
            select.setString(2, notOn.orElse(null));
            // the workers may need a moment after the cluster recovered: wait for their first grant
            for (int attempt = 0; attempt < 60; attempt++) {
                try (ResultSet rows = select.executeQuery()) {
                    rows.next();
                    OffsetDateTime first = rows.getObject(1, OffsetDateTime.class);
                    if (first != null) {
                        return Optional.of(first.toInstant());
                    }
                }
                Thread.sleep(500);
            }
            return Optional.empty();
        } catch (SQLException e) {
            problems.add("could not read the first grant after " + at + ": " + e.getMessage());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * Writes the orchestrator's own grants into the clients' history, as a worker would have: what it was told, and
     * what its release (now, after the failover) found.
     */
    void recordHeldGrants(Connection connection) throws SQLException {
        for (Held grant : held) {
            String outcome;
            try {
                outcome = grant.lease().release() ? "removed" : "not-removed";
            } catch (RuntimeException e) {
                outcome = "failed";
            }
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO checker_client_grant (process, thread, lock_key, fencing_token, confirmed_expires_at,"
                            + " renewals, behaviour, lease_mode, release_outcome, writes_accepted, writes_rejected,"
                            + " writes_failed, granted_at) VALUES ('orchestrator', 'held-across-failover', ?, ?, ?, 0,"
                            + " 'HELD_ACROSS_FAILOVER', 'exclusive', ?, 0, 0, 0, ?)")) {
                insert.setString(1, grant.lease().key());
                insert.setLong(2, grant.lease().fencingToken());
                insert.setTimestamp(3, Timestamp.from(grant.lease().expiresAt()));
                insert.setString(4, outcome);
                insert.setTimestamp(5, Timestamp.from(grant.grantedAt()));
                insert.executeUpdate();
            }
        }
    }

    List<Outage> outages() {
        return List.copyOf(outages);
    }

    List<String> problems() {
        return List.copyOf(problems);
    }

    /** Per fault: how many, and the median and longest time from the fault to the first grant after it. */
    static String markdown(List<Outage> outages) {
        if (outages.isEmpty()) {
            return "";
        }
        Map<Checker.Fault, List<Duration>> byFault = new TreeMap<>();
        outages.forEach(
                o -> byFault.computeIfAbsent(o.fault(), f -> new ArrayList<>()).add(o.toFirstGrant()));
        StringBuilder out = new StringBuilder(
                "\n| cluster fault | count | fault to first grant, median (ms) | max (ms) |\n| --- | --- | --- | --- |\n");
        byFault.forEach((fault, times) -> {
            List<Duration> sorted = times.stream().sorted().toList();
            out.append("| ")
                    .append(fault.description)
                    .append(" | ")
                    .append(sorted.size())
                    .append(" | ")
                    .append(median(sorted).toMillis())
                    .append(" | ")
                    .append(sorted.get(sorted.size() - 1).toMillis())
                    .append(" |\n");
        });
        List<Duration> failovers = outages.stream()
                .filter(o -> o.fault().failover)
                .map(Outage::toFirstGrant)
                .sorted(Comparator.naturalOrder())
                .toList();
        if (!failovers.isEmpty()) {
            out.append("\nfailovers (primary dead, frozen or cut off) to the first new grant: ")
                    .append(failovers.size())
                    .append(", median ")
                    .append(median(failovers).toMillis())
                    .append(" ms, max ")
                    .append(failovers.get(failovers.size() - 1).toMillis())
                    .append(" ms\n");
        }
        out.append("\ncluster faults in order: ")
                .append(outages.stream()
                        .map(o -> o.fault().name().toLowerCase() + "(" + o.node() + ", "
                                + o.toFirstGrant().toMillis() + " ms)")
                        .collect(Collectors.joining(", ")))
                .append('\n');
        return out.toString();
    }

    private static Duration median(List<Duration> sorted) {
        int n = sorted.size();
        return n % 2 == 1
                ? sorted.get(n / 2)
                : sorted.get(n / 2 - 1).plus(sorted.get(n / 2)).dividedBy(2);
    }

    @Override
    public void close() {
        if (holder != null) {
            holder.close();
        }
        if (pool != null) {
            pool.close();
        }
    }
}
