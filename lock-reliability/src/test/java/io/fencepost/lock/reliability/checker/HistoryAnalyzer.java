package io.fencepost.lock.reliability.checker;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;

/**
 * Verifies a recorded history. The definitions, in database time (the server's {@code clock_timestamp()}):
 *
 * <ul>
 *   <li>A grant starts when the granting statement wrote its row (the trigger's clock; the row becomes visible to
 *       others only at commit, later still). Its lease ends at {@code E}, the latest expiry ever confirmed for it
 *       (by the grant or a renewal, in the store or to the client), or the expiry a release with a minimum hold
 *       set, unless its own holder released it earlier: then at the moment the release deleted the row. A grant's
 *       interval is {@code [start, end)}.
 *   <li>A lease of a shared or permits row is one entry of the row's holders; the trigger records each entry's
 *       grant, renewals and end as it does a row's, so every lease has its own interval whatever its mode.
 *   <li><b>overlap</b>: a grant of a key starts while a lease of the key it may not meet is live: an exclusive
 *       grant meets no other lease, shared leases meet only shared ones, permits only permits.
 *   <li><b>permits exceeded</b>: a permit is granted while the n permits of the key's plan are live.
 *   <li><b>token order</b>: in start order, the fencing tokens of a key do not strictly increase, overlapping
 *       grants included (every grant of a key holds the key's draw lock from its draw to its commit).
 *   <li><b>wrong mode</b>: a client was told a grant of another mode than the one it asked for.
 *   <li><b>foreign delete</b>: a live lease's row was deleted, or handed over to another grant, before its expiry
 *       and before its holder asked to release it (by the database clock, read just before the release; when that reading failed: although the
 *       holder's release found nothing to remove): someone else removed it.
 *   <li><b>phantom grant</b>: a client was told it holds a (key, token) that the store never granted; <b>phantom
 *       expiry</b>: a client was told an expiry the store never recorded for that grant; <b>double claim</b>: two
 *       clients were told the same grant.
 *   <li><b>double grant</b>: while a client held a grant that the store has lost (a phantom grant, or the loser of a
 *       double claim: a failover to a replica that never received it makes both), from that grant's start (its first
 *       confirmed expiry less its lease time) to its confirmed expiry, the store granted the key to someone else in a
 *       mode the lost lease excludes.
 *   <li><b>stale write</b>: in commit order (the resource's version), a write was accepted with a token lower than
 *       one accepted before; <b>ungranted write</b>: an accepted write carries a token never granted for its key.
 * </ul>
 */
final class HistoryAnalyzer {

    /** One broken invariant. */
    record Violation(String kind, String key, String detail) {
        @Override
        public String toString() {
            return kind + " on " + key + ": " + detail;
        }
    }

    /** The result: violations (empty when the history is correct) and counts of what happened. */
    record Verdict(List<Violation> violations, Map<String, Long> stats) {

        long count(String kind) {
            return violations.stream().filter(v -> v.kind.equals(kind)).count();
        }

        Map<String, Long> violationsByKind() {
            Map<String, Long> byKind = new TreeMap<>();
            violations.forEach(v -> byKind.merge(v.kind, 1L, Long::sum));
            return byKind;
        }
    }

    private static final class StoreGrant {
        final String key;
        final long token;
        final String mode;
        final int permits;
        final Instant start;
        final Instant acquiredAt;
        Instant maxExpires;
        Instant keptUntil;
        Instant deletedAt;
        ClientRow client;
        int claims;

        StoreGrant(
                String key, long token, String mode, int permits, Instant start, Instant acquiredAt, Instant expires) {
            this.key = key;
            this.token = token;
            this.mode = mode;
            this.permits = permits;
            this.start = start;
            this.acquiredAt = acquiredAt;
            this.maxExpires = expires;
        }

        /**
         * When the lease ends: the latest expiry confirmed by the grant or a renewal, or, after a release with a
         * minimum hold (which may shorten it as well as extend it), the expiry that release set.
         */
        Instant expiry() {
            if (keptUntil != null) {
                return keptUntil;
            }
            Instant e = maxExpires;
            if (client != null && client.confirmedExpiresAt != null && client.confirmedExpiresAt.isAfter(e)) {
                e = client.confirmedExpiresAt;
            }
            return e;
        }

        /**
         * A delete counts as the holder's own release unless it happened before the holder asked to release (by the
         * database clock, read just before), or, when that time is unknown, its holder's release found nothing.
         */
        boolean deletedByOwnRelease() {
            if (deletedAt == null) {
                return false;
            }
            if (client == null) {
                return true;
            }
            if (client.releaseAskedAt != null) {
                return !deletedAt.isBefore(client.releaseAskedAt);
            }
            return !"not-removed".equals(client.releaseOutcome);
        }

        Instant end() {
            Instant e = expiry();
            return deletedByOwnRelease() && deletedAt.isBefore(e) ? deletedAt : e;
        }
    }

    private record ClientRow(
            String process,
            String thread,
            String key,
            long token,
            Instant confirmedExpiresAt,
            String behaviour,
            String mode,
            String releaseOutcome,
            Instant releaseAskedAt,
            String lostReason,
            int accepted,
            int rejected,
            int failed,
            Instant grantedAt) {}

    private static final int MAX_REPORTED = 50;

    private final List<Violation> violations = new ArrayList<>();

    private final Map<String, Long> stats = new LinkedHashMap<>();

    private int suppressed;

    private HistoryAnalyzer() {}

    static Verdict analyze(Connection connection) throws SQLException {
        HistoryAnalyzer analyzer = new HistoryAnalyzer();
        analyzer.run(connection);
        if (analyzer.suppressed > 0) {
            analyzer.stats.put("violations not listed", (long) analyzer.suppressed);
        }
        return new Verdict(List.copyOf(analyzer.violations), Map.copyOf(analyzer.stats));
    }

    private void violation(String kind, String key, String detail) {
        if (violations.size() < MAX_REPORTED * 4) {
            violations.add(new Violation(kind, key, detail));
        } else {
            suppressed++;
        }
    }

    private void count(String name, long delta) {
        stats.merge(name, delta, Long::sum);
    }

    private void run(Connection connection) throws SQLException {
        Map<Long, StoreGrant> grants = new HashMap<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT op, lock_key, fencing_token, prev_token, acquired_at, expires_at, at, lease_mode,"
                                + " permits FROM checker_store_event ORDER BY id")) {
            while (rows.next()) {
                String op = rows.getString(1);
                String key = rows.getString(2);
                long token = rows.getLong(3);
                Instant acquiredAt = instant(rows, 5);
                Instant expires = instant(rows, 6);
                Instant at = instant(rows, 7);
                StoreGrant grant = grants.get(token);
                switch (op) {
                    case "grant" -> {
                        count("store: grants", 1);
                        if (rows.getObject(4) != null) {
                            // The row of an earlier grant was taken over (expired) or handed over (live, by its
                            // holder's release to a waiter of the same client): that grant's row ends here.
                            StoreGrant replaced = grants.get(rows.getLong(4));
                            boolean live = replaced != null && at.isBefore(replaced.expiry());
                            count(live ? "store: live leases handed over" : "store: expired leases taken over", 1);
                            if (replaced != null && replaced.deletedAt == null) {
                                replaced.deletedAt = at;
                            }
                        }
                        if (grant != null) {
                            violation(
                                    "duplicate token",
                                    key,
                                    "token " + token + " was granted twice (also on " + grant.key + " at " + grant.start
                                            + ")");
                        } else {
                            grants.put(
                                    token,
                                    new StoreGrant(
                                            key, token, rows.getString(8), rows.getInt(9), at, acquiredAt, expires));
                        }
                    }
                    case "renew" -> {
                        count("store: renewals", 1);
                        if (grant != null && expires.isAfter(grant.maxExpires)) {
                            grant.maxExpires = expires;
                        }
                    }
                    case "keep" -> {
                        count("store: releases keeping a minimum hold", 1);
                        if (grant != null) {
                            grant.keptUntil = expires;
                        }
                    }
                    case "delete" -> {
                        count("store: releases", 1);
                        if (grant != null && grant.deletedAt == null) {
                            grant.deletedAt = at;
                        }
                    }
                    default -> throw new IllegalStateException("unknown event " + op);
                }
            }
        }

        List<ClientRow> clients = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT process, thread, lock_key, fencing_token, confirmed_expires_at, behaviour, lease_mode,"
                                + " release_outcome, release_asked_at, lost_reason, writes_accepted, writes_rejected,"
                                + " writes_failed, granted_at"
                                + " FROM checker_client_grant ORDER BY id")) {
            while (rows.next()) {
                clients.add(new ClientRow(
                        rows.getString(1),
                        rows.getString(2),
                        rows.getString(3),
                        rows.getLong(4),
                        instant(rows, 5),
                        rows.getString(6),
                        rows.getString(7),
                        rows.getString(8),
                        instant(rows, 9),
                        rows.getString(10),
                        rows.getInt(11),
                        rows.getInt(12),
                        rows.getInt(13),
                        instant(rows, 14)));
            }
        }
        count("clients: critical sections", clients.size());
        List<ClientRow> lost = new ArrayList<>();
        for (ClientRow client : clients) {
            count("clients: critical sections " + client.behaviour, 1);
            count("clients: critical sections " + client.mode, 1);
            count("clients: releases " + client.releaseOutcome, 1);
            if (client.lostReason != null) {
                count("clients: leases reported lost", 1);
            }
            count("writes: rejected by the fencing guard", client.rejected);
            count("writes: failed (connection or statement error)", client.failed);
            StoreGrant grant = grants.get(client.token);
            if (grant == null || !grant.key.equals(client.key)) {
                violation(
                        "phantom grant",
                        client.key,
                        client.thread + " was told it holds token " + client.token
                                + ", which the store never granted for this key");
                lost.add(client);
                continue;
            }
            grant.claims++;
            if (grant.claims > 1) {
                violation(
                        "double claim",
                        client.key,
                        "token " + client.token + " was given to " + client.thread + " and to " + grant.client.thread);
                // A token issued twice (a failover lost the first grant, and the sequence handed its value out
                // again): the store's grant is the claim made at its time; the other was lost, and still held.
                if (closer(client, grant.client, grant.start)) {
                    lost.add(grant.client);
                    grant.client = client;
                } else {
                    lost.add(client);
                }
                continue;
            }
            grant.client = client;
            if (!grant.mode.equals(client.mode)) {
                violation(
                        "wrong mode",
                        client.key,
                        client.thread + " asked for a " + client.mode + " lease and was told it holds token "
                                + client.token + ", which the store granted as " + grant.mode);
            }
            if (client.confirmedExpiresAt != null && client.confirmedExpiresAt.isAfter(grant.maxExpires)) {
                violation(
                        "phantom expiry",
                        client.key,
                        client.thread + " was told token " + client.token
                                + " lasts until " + client.confirmedExpiresAt + ", the store recorded at most "
                                + grant.maxExpires);
            }
        }

        Map<String, List<StoreGrant>> byKey = new TreeMap<>();
        grants.values()
                .forEach(g ->
                        byKey.computeIfAbsent(g.key, k -> new ArrayList<>()).add(g));
        Map<String, String> kinds = new HashMap<>();
        Map<String, Integer> planned = new HashMap<>();
        readPlan(connection, kinds, planned);
        Duration acquiredEarly = Duration.ZERO;
        for (Map.Entry<String, List<StoreGrant>> entry : byKey.entrySet()) {
            String key = entry.getKey();
            List<StoreGrant> ordered = entry.getValue();
            String kind = kinds.getOrDefault(key, "unplanned");
            ordered.forEach(g -> count("store: grants on " + kind + " keys, " + g.mode, 1));
            ordered.sort(Comparator.comparing((StoreGrant g) -> g.start).thenComparingLong(g -> g.token));
            // the leases live at the start of the grant at hand, by end
            PriorityQueue<StoreGrant> live = new PriorityQueue<>(Comparator.comparing(StoreGrant::end));
            StoreGrant latest = null;
            StoreGrant latestExclusive = null;
            StoreGrant previous = null;
            for (StoreGrant grant : ordered) {
                while (!live.isEmpty() && !grant.start.isBefore(live.peek().end())) {
                    live.poll();
                }
                checkAgainstLive(key, grant, live, planned);
                live.add(grant);
                if (!"exclusive".equals(grant.mode)) {
                    long same =
                            live.stream().filter(g -> g.mode.equals(grant.mode)).count();
                    stats.merge("store: most " + grant.mode + " leases of a key live at once", same, Math::max);
                    if (same > 1) {
                        count("store: " + grant.mode + " grants made while another lease of the key was live", 1);
                    }
                }
                // the latest end of the earlier grants this one may not overlap (permits may overlap anything
                // but more permits than allowed, so they have none)
                StoreGrant conflicting = switch (grant.mode) {
                    case "exclusive" -> latest;
                    case "shared" -> latestExclusive;
                    default -> null;
                };
                if (conflicting != null && grant.acquiredAt.isBefore(conflicting.end())) {
                    count("store: acquired_at earlier than the previous grant's end", 1);
                    Duration early = Duration.between(grant.acquiredAt, conflicting.end());
                    acquiredEarly = early.compareTo(acquiredEarly) > 0 ? early : acquiredEarly;
                }
                if (previous != null && grant.token <= previous.token) {
                    violation(
                            "token order",
                            key,
                            "token " + grant.token + " granted at " + grant.start + " after token " + previous.token
                                    + " (granted at " + previous.start + ")");
                }
                if (latest == null || grant.end().isAfter(latest.end())) {
                    latest = grant;
                }
                if ("exclusive".equals(grant.mode)
                        && (latestExclusive == null || grant.end().isAfter(latestExclusive.end()))) {
                    latestExclusive = grant;
                }
                previous = grant;
                if (grant.deletedAt != null
                        && grant.deletedAt.isBefore(grant.expiry())
                        && !grant.deletedByOwnRelease()) {
                    violation(
                            "foreign delete",
                            key,
                            "the live lease of token " + grant.token + " (until "
                                    + grant.expiry() + ") was deleted or handed over at " + grant.deletedAt
                                    + ", before its holder asked to release it (holder " + grant.client.process()
                                    + "/" + grant.client.thread() + ", " + grant.client.behaviour() + ", release "
                                    + grant.client.releaseOutcome() + " asked at " + grant.client.releaseAskedAt()
                                    + ", lost: " + grant.client.lostReason() + ")");
                }
            }
        }
        for (ClientRow claim : lost) {
            doubleGrants(claim, byKey.getOrDefault(claim.key, List.of()));
        }
        if (!acquiredEarly.isZero()) {
            stats.put(
                    "store: acquired_at earlier than the previous grant's end, at most (µs)",
                    acquiredEarly.toNanos() / 1_000);
        }

        Map<String, String> keyOfResource = new HashMap<>();
        byKey.keySet().forEach(k -> keyOfResource.put(CheckerSchema.resource(k), k));
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT resource, version, fencing_token, thread"
                        + " FROM checker_write ORDER BY resource, version")) {
            String resource = null;
            long highest = Long.MIN_VALUE;
            long accepted = 0;
            while (rows.next()) {
                accepted++;
                if (!rows.getString(1).equals(resource)) {
                    resource = rows.getString(1);
                    highest = Long.MIN_VALUE;
                }
                long token = rows.getLong(3);
                String key = keyOfResource.getOrDefault(resource, resource);
                StoreGrant grant = grants.get(token);
                if (grant == null || !grant.key.equals(key)) {
                    violation(
                            "ungranted write",
                            key,
                            rows.getString(4) + " wrote version " + rows.getLong(2) + " with token " + token
                                    + ", never granted for this key");
                }
                if (token < highest) {
                    violation(
                            "stale write",
                            key,
                            rows.getString(4) + " wrote version " + rows.getLong(2) + " with token " + token
                                    + " after token " + highest + " had been accepted");
                }
                highest = Math.max(highest, token);
            }
            count("writes: accepted", accepted);
        }
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT name, sum(value) FROM checker_client_stat GROUP BY name ORDER BY name")) {
            while (rows.next()) {
                count("clients: " + rows.getString(1), rows.getLong(2));
            }
        }
    }

    /**
     * Checks a grant against the leases of its key still live when it started: an exclusive lease may meet no other
     * lease, shared leases only shared ones, permits only permits, and at most as many as the key's plan allows
     * (the store's own count when the key has no plan).
     */
    private void checkAgainstLive(
            String key, StoreGrant grant, PriorityQueue<StoreGrant> live, Map<String, Integer> planned) {
        if (live.isEmpty()) {
            return;
        }
        StoreGrant other = live.stream()
                .filter(g -> "exclusive".equals(g.mode) || !g.mode.equals(grant.mode))
                .findFirst()
                .orElse("exclusive".equals(grant.mode) ? live.peek() : null);
        if (other != null) {
            violation(
                    "overlap",
                    key,
                    grant.mode + " token " + grant.token + " granted at " + grant.start + " while " + other.mode
                            + " token " + other.token + " ran until " + other.end() + " ("
                            + Duration.between(grant.start, other.end()).toMillis() + " ms of overlap)");
            return;
        }
        if ("permits".equals(grant.mode)) {
            int limit = planned.getOrDefault(key, grant.permits);
            if (live.size() + 1 > limit) {
                violation(
                        "permits exceeded",
                        key,
                        "token " + grant.token + " granted at " + grant.start + " as permit " + (live.size() + 1)
                                + " of " + limit + " while tokens "
                                + live.stream()
                                        .map(g -> g.token + " (until " + g.end() + ")")
                                        .sorted()
                                        .toList() + " were live");
            }
        }
    }

    /** Reads the key plan: each key's kind, and the permits each permit key allows. */
    private static void readPlan(Connection connection, Map<String, String> kinds, Map<String, Integer> permits)
            throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT lock_key, kind, permits FROM checker_key")) {
            while (rows.next()) {
                kinds.put(rows.getString(1), rows.getString(2));
                if ("permits".equals(rows.getString(2))) {
                    permits.put(rows.getString(1), rows.getInt(3));
                }
            }
        }
    }

    /** Whether {@code a} was granted nearer to {@code start} than {@code b} (by the grant times they were told). */
    private static boolean closer(ClientRow a, ClientRow b, Instant start) {
        if (a.grantedAt == null || b.grantedAt == null) {
            return false;
        }
        return Duration.between(a.grantedAt, start)
                        .abs()
                        .compareTo(Duration.between(b.grantedAt, start).abs())
                < 0;
    }

    /**
     * A grant that a client was told about but the store does not have (lost with a primary that a failover left
     * behind, say) still had a holder, who believed in it from its grant until the expiry it was confirmed: any grant
     * of the same key the store made in that time that its mode excludes (an exclusive lease excludes everything, a
     * shared one exclusive leases) was a second holder at once. Permit leases are left out: they may overlap up to
     * their count, which a lost lease no longer shows.
     */
    private void doubleGrants(ClientRow claim, List<StoreGrant> grantsOfKey) {
        if (claim.grantedAt == null || claim.confirmedExpiresAt == null || "permits".equals(claim.mode)) {
            return;
        }
        for (StoreGrant grant : grantsOfKey) {
            boolean excluded = "exclusive".equals(claim.mode) || "exclusive".equals(grant.mode);
            if (excluded && !grant.start.isBefore(claim.grantedAt) && grant.start.isBefore(claim.confirmedExpiresAt)) {
                violation(
                        "double grant",
                        claim.key,
                        "token " + grant.token + " granted at " + grant.start + " while " + claim.thread
                                + " held token " + claim.token + " (granted at " + claim.grantedAt
                                + ", confirmed until " + claim.confirmedExpiresAt + ", lost from the store)");
            }
        }
    }

    private static Instant instant(ResultSet rows, int column) throws SQLException {
        OffsetDateTime value = rows.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
