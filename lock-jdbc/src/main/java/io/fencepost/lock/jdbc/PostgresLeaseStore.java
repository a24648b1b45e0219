package io.fencepost.lock.jdbc;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.HandOver;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.RenewRequest;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The {@link LeaseStore} on PostgreSQL: one statement per call, each in its own autocommit transaction, with
 * expiry decided by the database clock ({@code clock_timestamp()}).
 */
public final class PostgresLeaseStore implements LeaseStore, AutoCloseable {

    // Slots: %1$s the lock table, %2$s its fencing sequence (both validated, quoted identifiers), %3$d the
    // advisory lock class id derived from the table. Everything else is a bind parameter.

    /**
     * Takes the key when it is free or expired, in one statement. The token is drawn under a transaction-scoped
     * advisory lock on (class id, hash of the key): nextval in the INSERT's source runs before the conflict is
     * resolved, so without the lock a statement that stalled between its draw and its insert could win a key
     * just released with a token lower than one already granted for it. Under the lock every earlier grant of
     * the key has committed before our draw, so a key's tokens strictly increase in grant order. Keys whose
     * hashes collide merely take turns. No CTE and no second branch: the statement is as close to a bare
     * {@code INSERT ... ON CONFLICT} as these guarantees allow (issue 8 measured each part). A busy key returns a
     * row only to a caller that will wait, from the conflict's row lock, so it always sees the holder's latest
     * lease; a caller that does not wait gets no row and writes nothing.
     */
    private static final String ACQUIRE_SQL = """
            INSERT INTO %1$s AS l (lock_key, owner_token, holder, fencing_token, acquired_at, expires_at, contended)
            SELECT ?, ?::uuid, ?, nextval('%2$s'), t.now, t.now + ? * interval '1 millisecond', false
              -- one reading of the clock, taken once the draw lock is ours: the lease is exactly as long as asked
              FROM (SELECT clock_timestamp() AS now
                      FROM (-- an attempt that loses commits asynchronously: its row lock or waiter mark need no
                            -- WAL flush (a grant switches back to a durable commit below)
                            SELECT set_config('synchronous_commit', 'off', true),
                                   -- serialize the token draw per key, until this statement commits
                                   pg_advisory_xact_lock(%3$d, hashtext(?))
                            OFFSET 0) AS guard) AS t
            ON CONFLICT (lock_key) DO UPDATE
               SET owner_token   = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.owner_token ELSE l.owner_token END,
                   holder        = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.holder ELSE l.holder END,
                   fencing_token = CASE WHEN l.expires_at <= excluded.acquired_at THEN nextval('%2$s') ELSE l.fencing_token END,
                   acquired_at   = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.acquired_at ELSE l.acquired_at END,
                   expires_at    = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.expires_at ELSE l.expires_at END,
                   contended     = l.expires_at > excluded.acquired_at
             -- take over an expired lease; or, for a caller that will wait, mark a live one as waited for (so that
             -- its release sends a notification) and learn how long it still runs. A caller that does not wait
             -- writes nothing and gets no row back.
             WHERE l.expires_at <= excluded.acquired_at OR ?
            -- durability: a grant (and its fencing token) must survive a crash, whatever the server default, so
            -- a granting statement commits synchronously; the setting applies to this statement's own commit
            RETURNING CASE WHEN l.owner_token = ?::uuid THEN set_config('synchronous_commit', 'on', true) = 'on'
                           ELSE false END AS granted,
                      l.fencing_token, l.acquired_at, l.expires_at,
                      ceil(extract(epoch FROM (l.expires_at - clock_timestamp())) * 1000)::bigint AS remaining_ms
            """;

    /**
     * Fair mode's acquire: as {@link #ACQUIRE_SQL}, but the key is taken only when no live ticket lower than ours
     * waits for it. A grant removes our ticket; a failure refreshes all of this client's tickets on the key, marks
     * the lease as waited for, and clears tickets that lapsed (their waiters are gone).
     */
    private static final String FAIR_ACQUIRE_SQL = """
            WITH guard AS MATERIALIZED (
                SELECT set_config('synchronous_commit', 'on', true) AS sc,
                       pg_advisory_xact_lock(%3$d, hashtext(?)) AS lk
            ), t AS MATERIALIZED (
                SELECT clock_timestamp() AS now FROM guard
            ), ins AS (
                INSERT INTO %1$s AS l (lock_key, owner_token, holder, fencing_token, acquired_at, expires_at, contended)
                SELECT ?, ?::uuid, ?, nextval('%2$s'), t.now, t.now + ? * interval '1 millisecond', false
                FROM t
                WHERE NOT EXISTS (
                    SELECT 1 FROM %5$s q WHERE q.lock_key = ? AND q.ticket < ? AND q.expires_at > t.now)
                ON CONFLICT (lock_key) DO UPDATE
                   SET owner_token   = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.owner_token ELSE l.owner_token END,
                       holder        = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.holder ELSE l.holder END,
                       fencing_token = CASE WHEN l.expires_at <= excluded.acquired_at THEN nextval('%2$s') ELSE l.fencing_token END,
                       acquired_at   = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.acquired_at ELSE l.acquired_at END,
                       expires_at    = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.expires_at ELSE l.expires_at END,
                       contended     = l.expires_at > excluded.acquired_at
                 WHERE l.expires_at <= excluded.acquired_at OR NOT l.contended
                RETURNING l.owner_token = ?::uuid AS granted, l.fencing_token, l.acquired_at, l.expires_at,
                          ceil(extract(epoch FROM (l.expires_at - clock_timestamp())) * 1000)::bigint AS remaining_ms
            ), marked AS (
                -- queued behind an earlier ticket: still mark the lease, so that its release wakes the queue
                UPDATE %1$s AS m SET contended = true
                 WHERE m.lock_key = ? AND NOT m.contended AND NOT EXISTS (SELECT 1 FROM ins)
            ), served AS (
                DELETE FROM %5$s q
                 WHERE q.lock_key = ? AND q.ticket = ? AND EXISTS (SELECT 1 FROM ins WHERE granted)
            ), refreshed AS (
                UPDATE %5$s q SET expires_at = clock_timestamp() + ? * interval '1 millisecond'
                 WHERE q.lock_key = ? AND q.waiter = ?::uuid AND NOT EXISTS (SELECT 1 FROM ins WHERE granted)
            ), lapsed AS (
                DELETE FROM %5$s q USING t
                 WHERE q.lock_key = ? AND q.expires_at <= t.now AND q.waiter <> ?::uuid
            )
            SELECT granted, fencing_token, acquired_at, expires_at, remaining_ms FROM ins
            UNION ALL
            SELECT false, NULL, NULL, NULL, ceil(extract(epoch FROM (c.expires_at - clock_timestamp())) * 1000)::bigint
            FROM %1$s c WHERE c.lock_key = ? AND NOT EXISTS (SELECT 1 FROM ins)
            """;

    /** Fair mode: a place in the key's queue. Not durable on purpose: a lost ticket only loses a place. */
    private static final String ENQUEUE_SQL = """
            INSERT INTO %5$s (lock_key, ticket, waiter, expires_at)
            SELECT ?, nextval('%2$s'), ?::uuid, clock_timestamp() + ? * interval '1 millisecond'
              FROM (SELECT set_config('synchronous_commit', 'off', true)) AS g
            RETURNING ticket
            """;

    /** Fair mode: leaving the queue without the key. */
    private static final String DEQUEUE_SQL = """
            DELETE FROM %5$s AS q
             USING (SELECT set_config('synchronous_commit', 'off', true)) AS g
             WHERE q.lock_key = ? AND q.ticket = ?
            """;

    /**
     * Hands our live lease to a new grant of this client (a local waiter): new owner token and holder, a new
     * fencing token, a fresh lease; durably, like acquire. {@code contended} is kept, so that a waiter elsewhere is
     * still woken by the next release.
     *
     * <p>The draw is serialized per key like every other grant's: an acquire of another client may have drawn its
     * token already and not yet written its row (it holds the draw lock until it commits). Were we to draw past it,
     * our waiter could release before that acquire inserts, and the acquire would then be granted the key with a
     * token lower than ours. Holding the row does not prevent that: the acquire needs no row once ours is gone. So
     * we take the draw lock before touching the row (the statement locks the row only after its source, which
     * takes the draw lock, has produced it), and every grant of the key before ours has committed by then.
     */
    private static final String HAND_OVER_SQL = """
            UPDATE %1$s AS l
               SET owner_token   = ?::uuid,
                   holder        = ?,
                   fencing_token = nextval('%2$s'),
                   acquired_at   = g.now,
                   expires_at    = g.now + ? * interval '1 millisecond'
              FROM (SELECT clock_timestamp() AS now
                      FROM (SELECT set_config('synchronous_commit', 'on', true),
                                   -- serialize the token draw per key, until this statement commits
                                   pg_advisory_xact_lock(%3$d, hashtext(?))
                            OFFSET 0) AS guard) AS g
             WHERE l.lock_key = ? AND l.owner_token = ?::uuid AND l.expires_at > g.now
            RETURNING l.fencing_token, l.acquired_at, l.expires_at, l.contended
            """;

    /** Extends every still-owned, unexpired lease of the batch; durably, like acquire. */
    private static final String RENEW_SQL = """
            UPDATE %1$s AS l
               SET expires_at = clock_timestamp() + r.lease_ms * interval '1 millisecond'
              FROM (SELECT set_config('synchronous_commit', 'on', true)) AS g,
                   unnest(?::text[], ?::uuid[], ?::bigint[]) AS r(lock_key, owner_token, lease_ms)
             WHERE l.lock_key = r.lock_key
               AND l.owner_token = r.owner_token
               AND l.expires_at > clock_timestamp()
            RETURNING l.lock_key, l.expires_at
            """;

    /**
     * Deletes our row, expired or not, and tells whether it was still live. Committed asynchronously on
     * purpose: a release lost in a crash only keeps the key locked until its lease expires, it never endangers
     * mutual exclusion or fencing. The next durable commit flushes it anyway.
     */
    private static final String RELEASE_SQL = """
            DELETE FROM %1$s AS l
             USING (SELECT set_config('synchronous_commit', 'off', true)) AS g
             WHERE l.lock_key = ? AND l.owner_token = ?::uuid
            RETURNING l.expires_at > clock_timestamp() AS was_live,
                      -- only a release that someone waits for pays for NOTIFY, which serializes commits server-wide
                      CASE WHEN l.contended THEN pg_notify('%4$s', l.lock_key) END AS notified
            """;

    /**
     * Release with a minimum hold time: a live lease of ours is set to end at acquisition plus the minimum hold
     * (or now, if that has passed), even when that is later than its current expiry, as ShedLock's
     * lockAtLeastFor does; an expired one is left as it is, so nothing expired is ever revived. The condition is
     * on the owner token alone, so a renewal that holds the row is waited for and then overruled, whichever
     * side of the expiry the two statements read the clock on. A live lease gets a fresh random owner token: a
     * later renewal then finds nothing, so a released lease can never be extended again. One clock reading
     * ({@code g.now}) for the whole row. Asynchronous commit, as for {@link #RELEASE_SQL}: a lost update only
     * ends the lease at its old expiry.
     */
    private static final String RELEASE_KEEP_SQL = """
            UPDATE %1$s AS l
               SET expires_at  = CASE WHEN l.expires_at > g.now
                                      THEN greatest(l.acquired_at + ? * interval '1 microsecond', g.now)
                                      ELSE l.expires_at END,
                   owner_token = CASE WHEN l.expires_at > g.now THEN gen_random_uuid() ELSE l.owner_token END
              FROM (SELECT clock_timestamp() AS now, set_config('synchronous_commit', 'off', true) AS sc) AS g
             WHERE l.lock_key = ? AND l.owner_token = ?::uuid
            RETURNING l.owner_token <> ?::uuid AS was_live
            """;

    /** An operator's forced release: removes the key's row whoever owns it, and tells whether it was live. */
    private static final String FORCE_RELEASE_SQL = """
            WITH released AS (
                DELETE FROM %1$s WHERE lock_key = ?
                RETURNING lock_key, contended, expires_at > clock_timestamp() AS was_live
            ), notified AS (
                SELECT pg_notify('%4$s', lock_key) FROM released WHERE contended
            )
            SELECT was_live, (SELECT count(*) FROM notified) AS notified FROM released
            """;

    /** The live lease on a key, without its owner token. */
    private static final String INSPECT_SQL = """
            SELECT lock_key, fencing_token, holder, acquired_at, expires_at
              FROM %1$s
             WHERE lock_key = ? AND expires_at > clock_timestamp()
            """;

    /** The width of the key and holder columns, in characters. */
    static final int MAX_LENGTH = 255;

    private final TableName tableName;

    private final StatementRunner runner;

    private final String acquireSql;

    private final String renewSql;

    private final String releaseSql;

    private final String releaseKeepSql;

    private final String inspectSql;

    private final String forceReleaseSql;

    private final NotificationListener listener;

    private final String fairAcquireSql;

    private final String enqueueSql;

    private final String dequeueSql;

    private final String handOverSql;

    /**
     * A store on {@code tableName}, which must already exist (see {@link SchemaInitializer}).
     *
     * @param statementTimeout how long one statement may take, connection wait excluded, before it fails with
     *     {@link io.fencepost.lock.LockStoreException}
     * @throws IllegalArgumentException for an invalid table name or a non-positive timeout
     */
    public PostgresLeaseStore(DataSource dataSource, String tableName, Duration statementTimeout) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(statementTimeout, "statementTimeout");
        if (statementTimeout.isNegative() || statementTimeout.isZero()) {
            throw new IllegalArgumentException("statement timeout must be positive, was " + statementTimeout);
        }
        this.tableName = TableName.of(tableName);
        this.runner = new StatementRunner(dataSource, statementTimeout);
        String table = this.tableName.quotedTable();
        String sequence = this.tableName.quotedSequence();
        int classId = this.tableName.advisoryClassId();
        this.acquireSql = ACQUIRE_SQL.formatted(table, sequence, classId);
        String channel = this.tableName.channel();
        this.renewSql = RENEW_SQL.formatted(table);
        this.handOverSql = HAND_OVER_SQL.formatted(table, sequence, classId);
        this.releaseSql = RELEASE_SQL.formatted(table, sequence, classId, channel);
        this.releaseKeepSql = RELEASE_KEEP_SQL.formatted(table);
        this.inspectSql = INSPECT_SQL.formatted(table);
        this.forceReleaseSql = FORCE_RELEASE_SQL.formatted(table, sequence, classId, channel);
        String queue = this.tableName.quotedQueueTable();
        this.fairAcquireSql = FAIR_ACQUIRE_SQL.formatted(table, sequence, classId, channel, queue);
        this.enqueueSql = ENQUEUE_SQL.formatted(table, sequence, classId, channel, queue);
        this.dequeueSql = DEQUEUE_SQL.formatted(table, sequence, classId, channel, queue);
        this.listener = new NotificationListener(
                dataSource, channel, (int) Math.min(Integer.MAX_VALUE, StatementRunner.ceilMillis(statementTimeout)));
    }

    @Override
    public AcquireResult tryAcquire(String key, String ownerToken, String holder, Duration leaseTime) {
        return tryAcquire(key, ownerToken, holder, leaseTime, false);
    }

    @Override
    public AcquireResult tryAcquire(String key, String ownerToken, String holder, Duration leaseTime, boolean waiting) {
        long leaseMillis = checkedGrantRequest(key, holder, leaseTime);
        UUID owner = OwnerTokens.toUuid(Objects.requireNonNull(ownerToken, "ownerToken"));
        return runner.run("acquire lock '" + key + "'", StoreFailures.secretsOf(ownerToken), acquireSql, statement -> {
            statement.setString(1, key);
            statement.setObject(2, owner);
            statement.setString(3, truncate(holder));
            statement.setLong(4, leaseMillis);
            statement.setString(5, key);
            statement.setBoolean(6, waiting);
            statement.setObject(7, owner);
            try (ResultSet rows = statement.executeQuery()) {
                return LeaseRowMapper.acquireResult(rows);
            }
        });
    }

    @Override
    public boolean supportsHandOver() {
        return true;
    }

    @Override
    public Optional<HandOver> handOver(
            String key, String fromOwnerToken, String ownerToken, String holder, Duration leaseTime) {
        long leaseMillis = checkedGrantRequest(key, holder, leaseTime);
        UUID from = OwnerTokens.toUuid(Objects.requireNonNull(fromOwnerToken, "fromOwnerToken"));
        UUID owner = OwnerTokens.toUuid(Objects.requireNonNull(ownerToken, "ownerToken"));
        return runner.run(
                "hand over lock '" + key + "'",
                StoreFailures.secretsOf(fromOwnerToken, ownerToken),
                handOverSql,
                statement -> {
                    statement.setObject(1, owner);
                    statement.setString(2, truncate(holder));
                    statement.setLong(3, leaseMillis);
                    statement.setString(4, key); // draw lock
                    statement.setString(5, key);
                    statement.setObject(6, from);
                    try (ResultSet rows = statement.executeQuery()) {
                        return LeaseRowMapper.handOver(rows);
                    }
                });
    }

    @Override
    public boolean supportsFairness() {
        return true;
    }

    @Override
    public long enqueue(String key, String waiterId, Duration ttl) {
        checkKey(key);
        UUID waiter = UUID.fromString(waiterId);
        long ttlMillis = positiveMillis(ttl, "ticket lifetime", key);
        return runner.run("queue for lock '" + key + "'", List.of(), enqueueSql, statement -> {
            statement.setString(1, key);
            statement.setObject(2, waiter);
            statement.setLong(3, ttlMillis);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        });
    }

    @Override
    public void dequeue(String key, long ticket) {
        runner.run("leave the queue of lock '" + key + "'", List.of(), dequeueSql, statement -> {
            statement.setString(1, key);
            statement.setLong(2, ticket);
            return statement.executeUpdate();
        });
    }

    @Override
    public AcquireResult tryAcquireFair(
            String key,
            String ownerToken,
            String holder,
            Duration leaseTime,
            String waiterId,
            long ticket,
            Duration ttl) {
        long leaseMillis = checkedGrantRequest(key, holder, leaseTime);
        long ttlMillis = positiveMillis(ttl, "ticket lifetime", key);
        UUID owner = OwnerTokens.toUuid(Objects.requireNonNull(ownerToken, "ownerToken"));
        UUID waiter = UUID.fromString(waiterId);
        return runner.run(
                "acquire lock '" + key + "'", StoreFailures.secretsOf(ownerToken), fairAcquireSql, statement -> {
                    int i = 0;
                    statement.setString(++i, key); // advisory lock
                    statement.setString(++i, key); // insert
                    statement.setObject(++i, owner);
                    statement.setString(++i, truncate(holder));
                    statement.setLong(++i, leaseMillis);
                    statement.setString(++i, key); // earlier tickets
                    statement.setLong(++i, ticket);
                    statement.setObject(++i, owner); // granted?
                    statement.setString(++i, key); // marked
                    statement.setString(++i, key); // served
                    statement.setLong(++i, ticket);
                    statement.setLong(++i, ttlMillis); // refreshed
                    statement.setString(++i, key);
                    statement.setObject(++i, waiter);
                    statement.setString(++i, key); // lapsed
                    statement.setObject(++i, waiter);
                    statement.setString(++i, key); // busy
                    try (ResultSet rows = statement.executeQuery()) {
                        return LeaseRowMapper.acquireResult(rows);
                    }
                });
    }

    @Override
    public Map<String, Instant> renew(Collection<RenewRequest> requests) {
        if (requests.isEmpty()) {
            return Map.of();
        }
        int size = requests.size();
        List<String> secrets = new ArrayList<>(2 * size);
        String[] keys = new String[size];
        UUID[] owners = new UUID[size];
        Long[] leaseMillis = new Long[size];
        int i = 0;
        for (RenewRequest request : requests) {
            keys[i] = request.key();
            owners[i] = OwnerTokens.toUuid(request.ownerToken());
            leaseMillis[i] = positiveMillis(request.leaseTime(), "lease time", request.key());
            secrets.addAll(StoreFailures.secretsOf(request.ownerToken()));
            i++;
        }
        return runner.run(describeRenewal(requests), secrets, renewSql, statement -> {
            Connection connection = statement.getConnection();
            Array keyArray = connection.createArrayOf("text", keys);
            Array ownerArray = connection.createArrayOf("uuid", owners);
            Array leaseArray = connection.createArrayOf("int8", leaseMillis);
            statement.setArray(1, keyArray);
            statement.setArray(2, ownerArray);
            statement.setArray(3, leaseArray);
            try (ResultSet rows = statement.executeQuery()) {
                return LeaseRowMapper.renewed(rows);
            }
        });
    }

    @Override
    public boolean release(String key, String ownerToken, Duration minHoldTime) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(minHoldTime, "minHoldTime");
        UUID owner = OwnerTokens.toUuid(Objects.requireNonNull(ownerToken, "ownerToken"));
        List<String> secrets = StoreFailures.secretsOf(ownerToken);
        String action = "release lock '" + key + "'";
        if (minHoldTime.isNegative() || minHoldTime.isZero()) {
            return runner.run(action, secrets, releaseSql, statement -> {
                statement.setString(1, key);
                statement.setObject(2, owner);
                try (ResultSet rows = statement.executeQuery()) {
                    return LeaseRowMapper.releasedLive(rows);
                }
            });
        }
        // In microseconds, the database clock's resolution: a minimum hold that has passed by the time of the
        // release must free the key now, and rounding it up to a millisecond could keep it locked a little longer.
        long minHoldMicros = positiveMicros(minHoldTime, "min hold time", key);
        return runner.run(action, secrets, releaseKeepSql, statement -> {
            statement.setLong(1, minHoldMicros);
            statement.setString(2, key);
            statement.setObject(3, owner);
            statement.setObject(4, owner);
            try (ResultSet rows = statement.executeQuery()) {
                return LeaseRowMapper.releasedLive(rows);
            }
        });
    }

    @Override
    public boolean forceRelease(String key) {
        Objects.requireNonNull(key, "key");
        return runner.run("force-release lock '" + key + "'", List.of(), forceReleaseSql, statement -> {
            statement.setString(1, key);
            try (ResultSet rows = statement.executeQuery()) {
                return LeaseRowMapper.releasedLive(rows);
            }
        });
    }

    @Override
    public Optional<LeaseInfo> inspect(String key) {
        Objects.requireNonNull(key, "key");
        return runner.run("inspect lock '" + key + "'", List.of(), inspectSql, statement -> {
            statement.setString(1, key);
            try (ResultSet rows = statement.executeQuery()) {
                return LeaseRowMapper.leaseInfo(rows);
            }
        });
    }

    /**
     * Wakes {@code listener} when a release of {@code key} is announced: the first subscription starts this
     * store's one {@code LISTEN} connection, which it then keeps (it takes one connection of the pool).
     */
    @Override
    public Subscription subscribe(String key, Runnable listener) {
        return this.listener.subscribe(key, listener);
    }

    /** Stops the notification listener, if it was started, and returns its connection. */
    @Override
    public void close() {
        listener.close();
    }

    /** The lock table this store uses. */
    public String tableName() {
        return tableName.table();
    }

    /** The advisory lock class id of the token draw, for tests that need to block it. */
    int advisoryClassId() {
        return tableName.advisoryClassId();
    }

    @Override
    public String toString() {
        return "PostgresLeaseStore[table=" + tableName.table() + "]";
    }

    private static void checkKey(String key) {
        Objects.requireNonNull(key, "key");
        if (key.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(
                    "key '" + key.replace("\0", "\\0") + "' contains the NUL character, which PostgreSQL cannot store");
        }
        int length = key.codePointCount(0, key.length());
        if (length > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "key is " + length + " characters long, fencepost's table holds at most " + MAX_LENGTH);
        }
    }

    /** Checks what every grant needs (key, holder, lease time) and returns the lease time in milliseconds. */
    private static long checkedGrantRequest(String key, String holder, Duration leaseTime) {
        checkKey(key);
        Objects.requireNonNull(holder, "holder");
        return positiveMillis(leaseTime, "lease time", key);
    }

    /** The holder name is informational: cut to the column's width rather than fail a grant over it. */
    private static String truncate(String holder) {
        if (holder.codePointCount(0, holder.length()) <= MAX_LENGTH) {
            return holder;
        }
        return holder.substring(0, holder.offsetByCodePoints(0, MAX_LENGTH));
    }

    private static long positiveMillis(Duration duration, String what, String key) {
        Objects.requireNonNull(duration, what);
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + duration + " (key '" + key + "')");
        }
        try {
            return StatementRunner.ceilMillis(duration);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + " is too long, was " + duration + " (key '" + key + "')", e);
        }
    }

    private static long positiveMicros(Duration duration, String what, String key) {
        positiveMillis(duration, what, key); // the same checks and messages as every other duration
        try {
            return Math.addExact(
                    Math.multiplyExact(duration.getSeconds(), 1_000_000L), (duration.getNano() + 999) / 1_000);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + " is too long, was " + duration + " (key '" + key + "')", e);
        }
    }

    private static String describeRenewal(Collection<RenewRequest> requests) {
        int shown = 3;
        String keys = requests.stream()
                .limit(shown)
                .map(request -> "'" + request.key() + "'")
                .collect(Collectors.joining(", "));
        String more = requests.size() > shown ? " and " + (requests.size() - shown) + " more" : "";
        return "renew " + requests.size() + (requests.size() == 1 ? " lease" : " leases") + " (" + keys + more + ")";
    }
}
