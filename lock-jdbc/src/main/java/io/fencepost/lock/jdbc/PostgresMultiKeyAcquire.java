package io.fencepost.lock.jdbc;

import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.MultiAcquireRequest;
import io.fencepost.lock.spi.MultiAcquireResult;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.StoreLimits;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Takes a set of keys in one statement ({@link MultiKeyStatements#ACQUIRE_ALL}): all of them, or none; and ends a
 * set's leases that nobody waits for in one statement ({@link MultiKeyStatements#RELEASE_ALL}).
 */
final class PostgresMultiKeyAcquire {

    /** PostgreSQL's "invalid text representation", which the statement raises to roll back a partial set. */
    private static final String INVALID_TEXT = "22P02";

    /** {@link StoreLimits#EXCLUSIVE_PRECEDENCE}, as the shared take-over fragment binds it. */
    private static final long PRECEDENCE_MS = StoreLimits.EXCLUSIVE_PRECEDENCE.toMillis();

    private final StatementRunner runner;

    private final NamedStatement statement;

    private final NamedStatement release;

    PostgresMultiKeyAcquire(StatementRunner runner, PostgresStatements statements) {
        this.runner = runner;
        this.statement = statements.acquireAll;
        this.release = statements.releaseAll;
    }

    /**
     * Ends, in one statement ({@link MultiKeyStatements#RELEASE_ALL}), those leases of {@code requests} (exclusive, of
     * distinct keys, without a minimum hold) that are still ours and that nobody waits for.
     *
     * @return per key it released, whether that lease was still live; the other keys were left as they were
     */
    Map<String, Boolean> releaseUncontended(List<ReleaseRequest> requests) {
        int size = requests.size();
        String[] keys = new String[size];
        UUID[] owners = new UUID[size];
        String[] tokens = new String[size];
        for (int i = 0; i < size; i++) {
            keys[i] = requests.get(i).key();
            owners[i] = OwnerTokens.toUuid(requests.get(i).ownerToken());
            tokens[i] = requests.get(i).ownerToken();
        }
        return runner.run(
                "release the set of locks " + List.of(keys),
                StoreFailures.secretsOf(tokens),
                release,
                (Connection c) ->
                        Map.of("keys", c.createArrayOf("text", keys), "owners", c.createArrayOf("uuid", owners)),
                rows -> {
                    Map<String, Boolean> released = new HashMap<>();
                    while (rows.next()) {
                        released.put(rows.getString("lock_key"), rows.getBoolean("was_live"));
                    }
                    return released;
                });
    }

    MultiAcquireResult acquireAll(MultiAcquireRequest request) {
        List<AcquireRequest> requests = request.requests();
        int size = requests.size();
        String[] keys = new String[size];
        UUID[] owners = new UUID[size];
        String[] tokens = new String[size];
        for (int i = 0; i < size; i++) {
            AcquireRequest one = requests.get(i);
            keys[i] = one.key();
            owners[i] = OwnerTokens.toUuid(one.ownerToken());
            tokens[i] = one.ownerToken();
            if (!one.leaseTime().equals(requests.get(0).leaseTime())
                    || !one.holder().equals(requests.get(0).holder())) {
                throw new IllegalArgumentException("every key of a set is taken with the same lease time and holder,"
                        + " but key '" + one.key() + "' asks for another: " + one);
            }
        }
        AcquireRequest first = requests.get(0);
        long leaseMillis = StatementRunner.millis(first.leaseTime(), "lease time", first.key());
        String action = "acquire the set of locks " + request.keys();
        return runner.withConnection(action, StoreFailures.secretsOf(tokens), connection -> {
            try {
                return StatementRunner.query(
                        connection,
                        statement,
                        (Connection c) -> Map.of(
                                "keys", c.createArrayOf("text", keys),
                                "owners", c.createArrayOf("uuid", owners),
                                "holder", first.holder(),
                                "waiting", first.waiting(),
                                "lease_ms", leaseMillis,
                                "precedence_ms", PRECEDENCE_MS),
                        rows -> result(rows, request));
            } catch (SQLException e) {
                if (INVALID_TEXT.equals(e.getSQLState())
                        && String.valueOf(e.getMessage()).contains(MultiKeyStatements.PARTIAL_SET_MARK)) {
                    // Another grant of a key committed as this statement began: nothing of the set was kept.
                    return MultiAcquireResult.Busy.unknown();
                }
                throw e;
            }
        });
    }

    /** Every key's grant in the order of the request, the busy key, or busy without knowing more (no row). */
    private static MultiAcquireResult result(ResultSet rows, MultiAcquireRequest request) throws SQLException {
        Map<String, AcquireResult.Granted> grants = new HashMap<>();
        while (rows.next()) {
            String key = rows.getString("lock_key");
            if (!rows.getBoolean("granted")) {
                long remainingMillis = rows.getLong("remaining_ms");
                return rows.wasNull() || remainingMillis <= 0
                        ? MultiAcquireResult.Busy.unknown()
                        : MultiAcquireResult.Busy.held(key, Duration.ofMillis(remainingMillis));
            }
            grants.put(
                    key,
                    new AcquireResult.Granted(
                            rows.getLong("fencing_token"),
                            rows.getObject("acquired_at", OffsetDateTime.class).toInstant(),
                            rows.getObject("expires_at", OffsetDateTime.class).toInstant()));
        }
        if (grants.isEmpty()) {
            return MultiAcquireResult.Busy.unknown();
        }
        List<AcquireResult.Granted> ordered = new ArrayList<>(grants.size());
        for (String key : request.keys()) {
            ordered.add(grants.get(key));
        }
        return new MultiAcquireResult.Granted(ordered);
    }
}
