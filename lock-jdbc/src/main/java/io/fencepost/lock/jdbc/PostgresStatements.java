package io.fencepost.lock.jdbc;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every lock statement of the PostgreSQL store, in one place (those of shared leases and permits are templates in
 * {@link SharedLeaseStatements}, that of sets of keys in {@link MultiKeyStatements}): each runs in its own autocommit transaction (but {@link #HOLD_UNTIL_COMMIT}, which
 * runs in the caller's) and decides by the database clock ({@code clock_timestamp()}). Slots in braces are filled
 * once per lock table: the shared fragments first, then the validated, quoted names ({@code {table}}, {@code {sequence}}, {@code {queue}}),
 * the NOTIFY channel and the advisory lock class id. Everything else is a named bind parameter ({@code :key}).
 */
final class PostgresStatements {

    /**
     * The draw lock: a transaction-scoped advisory lock on (class id, hash of the key), taken by every statement
     * that grants, before it draws a fencing token, and held until it commits. {@code nextval} is not
     * transactional and an insert's source draws before the conflict on the key is resolved, so without it a
     * statement that stalled between its draw and its write could win a key freed meanwhile with a token lower than
     * one already granted. Under it, every grant of the key that drew earlier has committed before we draw, so a
     * key's tokens strictly increase in grant order. Keys whose hashes collide merely take turns.
     */
    private static final String DRAW_LOCK = "pg_advisory_xact_lock({class_id}, hashtext(:key))";

    /**
     * The conflict's update in an exclusive acquire: take over a key whose leases have all expired (whatever their
     * kind), else leave it and mark it as waited for; a waiting exclusive request on shared leases also holds new
     * shared leases back for a while ({@code :precedence_ms}), so that a stream of them cannot starve it.
     */
    private static final String TAKE_EXPIRED = """
            owner_token   = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.owner_token ELSE l.owner_token END,
                   holder        = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.holder ELSE l.holder END,
                   fencing_token = CASE WHEN l.expires_at <= excluded.acquired_at THEN nextval('{sequence}') ELSE l.fencing_token END,
                   acquired_at   = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.acquired_at ELSE l.acquired_at END,
                   expires_at    = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.expires_at ELSE l.expires_at END,
                   contended     = l.expires_at > excluded.acquired_at,
                   lease_mode    = CASE WHEN l.expires_at <= excluded.acquired_at THEN 'exclusive' ELSE l.lease_mode END,
                   permits       = CASE WHEN l.expires_at <= excluded.acquired_at THEN 1 ELSE l.permits END,
                   holders       = CASE WHEN l.expires_at <= excluded.acquired_at THEN NULL ELSE l.holders END,
                   exclusive_waits_until = CASE
                       WHEN l.expires_at <= excluded.acquired_at THEN NULL
                       WHEN l.lease_mode = 'shared' THEN excluded.acquired_at + :precedence_ms * interval '1 millisecond'
                       ELSE l.exclusive_waits_until END""";

    /**
     * Whether the statement's row {@code l} is ours; when it is, the transaction commits durably, like every grant,
     * though it began asynchronous (an attempt that loses needs no WAL flush).
     */
    private static final String GRANTED = """
            CASE WHEN l.owner_token = :owner::uuid THEN set_config('synchronous_commit', 'on', true) = 'on'
                 ELSE false END AS granted""";

    /**
     * The opening of the acquire statements written as one CTE: the draw lock, one reading of the clock once it is
     * ours, and the insert of our lease into {@code ins} (its conflict clause follows), asynchronous until granted.
     */
    private static final String DRAW_THEN_INSERT = """
            WITH guard AS MATERIALIZED (
                SELECT set_config('synchronous_commit', 'off', true) AS sc, {draw_lock} AS lk
            ), t AS MATERIALIZED (
                SELECT clock_timestamp() AS now FROM guard
            ), ins AS (
                INSERT INTO {table} AS l (lock_key, owner_token, holder, fencing_token, acquired_at, expires_at, contended)
                SELECT :key, :owner::uuid, :holder, nextval('{sequence}'), t.now, t.now + :lease_ms * interval '1 millisecond', false
                  FROM t""";

    /** How long the lease of row {@code l} still runs, in whole milliseconds rounded up. */
    private static final String REMAINING_MS =
            "ceil(extract(epoch FROM (l.expires_at - clock_timestamp())) * 1000)::bigint";

    /**
     * Takes the key when it is free or expired, in one statement, under the draw lock. No CTE and no second branch:
     * as close to a bare {@code INSERT ... ON CONFLICT} as these guarantees allow. A busy key returns a row only to
     * a caller that will wait, from the conflict's row lock, so it always sees the holder's latest lease. A caller
     * that does not wait is answered by a plain read of the live row before anything else: it gets no row, takes
     * neither the draw lock nor the row's lock, draws no token and writes nothing, so that a losing attempt costs no
     * more than a bare insert that conflicts (a row of permits still goes the long way, to check the caller's count).
     * An attempt that loses commits asynchronously (its row lock or waiter mark needs no WAL flush); a grant switches
     * back to a durable commit in its RETURNING, since a grant and its fencing token must survive a crash whatever the
     * server's default.
     */
    static final String ACQUIRE = """
            INSERT INTO {table} AS l (lock_key, owner_token, holder, fencing_token, acquired_at, expires_at, contended)
            SELECT :key, :owner::uuid, :holder, nextval('{sequence}'), t.now, t.now + :lease_ms * interval '1 millisecond', false
              -- one reading of the clock, taken once the draw lock is ours: the lease is exactly as long as asked
              FROM (SELECT clock_timestamp() AS now
                      FROM (SELECT set_config('synchronous_commit', 'off', true), {draw_lock}
                             WHERE :waiting OR NOT EXISTS (
                                   SELECT 1 FROM {table} AS b
                                    WHERE b.lock_key = :key AND b.expires_at > clock_timestamp()
                                      AND b.lease_mode <> 'permits')
                            OFFSET 0) AS guard) AS t
            ON CONFLICT (lock_key) DO UPDATE
               SET {take_expired}
             -- take over an expired lease; or, for a caller that will wait, mark a live one as waited for (its release
             -- then notifies) and learn how long it still runs
             -- (a live lease of n permits also answers, so that the caller learns that it asks for 1)
             WHERE l.expires_at <= excluded.acquired_at OR :waiting OR l.lease_mode = 'permits'
            RETURNING {granted},
                      l.fencing_token, l.acquired_at, l.expires_at,
                      -- behind shared leases, ask again before the precedence lapses, however long they still run
                      CASE WHEN l.lease_mode = 'shared' THEN least({remaining_ms}, :precedence_ms / 2)
                           ELSE {remaining_ms} END AS remaining_ms,
                      l.lease_mode, l.permits
            """;

    /**
     * Hands our live lease to a new grant of this client (a local waiter): new owner token and holder, a new fencing
     * token, a fresh lease; durably, like a grant. {@code contended} is kept, so that a waiter elsewhere is still woken
     * by the next release. The draw lock comes first although we own the row: an acquire of another client may have
     * drawn its token already, and once our waiter releases, that acquire needs no row of ours and would be granted
     * with its older token. The statement locks the row only after its source, which takes the draw lock, has run.
     */
    static final String HAND_OVER = """
            WITH handed AS (
                UPDATE {table} AS l
                   SET owner_token   = :owner::uuid,
                       holder        = :holder,
                       fencing_token = nextval('{sequence}'),
                       acquired_at   = g.now,
                       expires_at    = g.now + :lease_ms * interval '1 millisecond'
                  FROM (SELECT clock_timestamp() AS now
                          FROM (SELECT set_config('synchronous_commit', 'on', true), {draw_lock} OFFSET 0) AS guard) AS g
                 WHERE l.lock_key = :key AND l.owner_token = :from_owner::uuid AND l.expires_at > g.now
                RETURNING l.fencing_token, l.acquired_at, l.expires_at, l.contended
            ), unregistered AS (
                -- the waiter's registration, if it made one, must not be handed the lease again by a later release
                DELETE FROM {queue} AS q
                 WHERE q.lock_key = :key AND q.owner_token = :owner::uuid AND EXISTS (SELECT 1 FROM handed)
            )
            SELECT fencing_token, acquired_at, expires_at, contended FROM handed
            """;

    /**
     * Extends every still-owned, unexpired exclusive lease of the batch to now plus its lease time, but never to before
     * its acquisition plus its minimum hold; durably, like a grant. The keys are named with {@code = ANY} as well as
     * joined: the generic plan then reads them through the primary key, where the join alone scans the whole table
     * once it holds a few thousand keys.
     */
    static final String RENEW = """
            UPDATE {table} AS l
               SET expires_at = greatest(clock_timestamp() + r.lease_ms * interval '1 millisecond',
                                         l.acquired_at + r.min_hold_us * interval '1 microsecond')
              FROM (SELECT set_config('synchronous_commit', 'on', true)) AS g,
                   unnest(:keys::text[], :owners::uuid[], :lease_ms::bigint[], :min_hold_us::bigint[])
                       AS r(lock_key, owner_token, lease_ms, min_hold_us)
             WHERE l.lock_key = ANY (:keys::text[])
               AND l.lock_key = r.lock_key
               AND l.owner_token = r.owner_token
               AND l.expires_at > clock_timestamp()
            RETURNING l.lock_key, l.owner_token::text AS owner, l.expires_at
            """;

    /**
     * The release of a lease nobody waits for, which is most of them: deletes our row unless it is marked as waited
     * for, and tells whether it was still live; committed asynchronously (see {@link #RELEASE}). No row back means the
     * lease was not ours any more, or someone waits (a mark that arrives while we wait for the row is seen, since the
     * condition is checked again on the row's latest version): {@link #RELEASE} then decides.
     */
    static final String RELEASE_UNCONTENDED = """
            DELETE FROM {table} AS l
             USING (SELECT set_config('synchronous_commit', 'off', true)) AS g
             WHERE l.lock_key = :key AND l.owner_token = :owner::uuid AND NOT l.contended
            RETURNING l.expires_at > clock_timestamp() AS was_live
            """;

    /**
     * Ends our lease, expired or not, and tells whether it was still live. When someone waits (the row is marked) and a
     * live registration waits for the key, the lease goes to the oldest registration in this statement: its owner
     * token, holder and lease time, a fresh lease from now and a new fencing token, drawn under the draw lock, which
     * is taken before the row is locked as in every granting statement; the registration is removed, the commit is
     * durable like a grant's, and the waiter is to be told by a message that carries the grant ({@link WaiterRelayStatements#HANDED_OVER})
     * on its store's own channel ({@link WaiterRelayStatements#WAITER_CHANNEL}), which no other store's listener hears.
     * Otherwise the row is deleted, committed asynchronously on purpose: a release lost in a crash only keeps the key
     * locked until its lease expires, which never endangers mutual exclusion or fencing; the key's waiters are to be
     * woken. The statement only names the wake-up: {@link ReleaseOutcome#WAKE_UP_SQL} sends it once this has committed. A registration
     * that a snapshot taken before it was made cannot see is not served; its waiter is woken by the key's message.
     */
    static final String RELEASE = """
            WITH seen AS MATERIALIZED (
                -- a plain read: only a release that someone waits for takes the draw lock, and locks the row first
                SELECT l.contended, set_config('synchronous_commit', 'off', true) AS sc
                  FROM {table} AS l
                 WHERE l.lock_key = :key AND l.owner_token = :owner::uuid
            ), drawn AS MATERIALIZED (
                SELECT {draw_lock} AS lk FROM seen WHERE seen.contended
            ), mine AS MATERIALIZED (
                SELECT l.expires_at > clock_timestamp() AS was_live
                  FROM {table} AS l
                 WHERE l.lock_key = :key AND l.owner_token = :owner::uuid AND (SELECT count(*) FROM drawn) > 0
                   FOR UPDATE OF l
            ), next AS MATERIALIZED (
                SELECT q.ticket, q.waiter, q.owner_token, q.holder, q.lease_ms,
                       set_config('synchronous_commit', 'on', true) AS sc
                  FROM {queue} AS q, mine AS m
                 WHERE q.lock_key = :key AND q.owner_token IS NOT NULL AND q.owner_token <> :owner::uuid
                   AND q.expires_at > clock_timestamp()
                 ORDER BY q.ticket
                 LIMIT 1
                   FOR UPDATE OF q SKIP LOCKED
            ), g AS MATERIALIZED (
                SELECT n.ticket, n.waiter, n.owner_token, n.holder, n.lease_ms, clock_timestamp() AS now FROM next AS n
            ), handed AS (
                UPDATE {table} AS l
                   SET owner_token   = g.owner_token,
                       holder        = g.holder,
                       fencing_token = nextval('{sequence}'),
                       acquired_at   = g.now,
                       expires_at    = g.now + g.lease_ms * interval '1 millisecond',
                       contended     = true
                  FROM g
                 WHERE l.lock_key = :key AND l.owner_token = :owner::uuid
                RETURNING l.fencing_token, l.acquired_at, l.expires_at, l.owner_token, g.waiter
            ), served AS (
                DELETE FROM {queue} AS q USING g WHERE q.lock_key = :key AND q.ticket = g.ticket
            ), removed AS (
                DELETE FROM {table} AS l
                 WHERE l.lock_key = :key AND l.owner_token = :owner::uuid AND NOT EXISTS (SELECT 1 FROM g)
                RETURNING l.expires_at > clock_timestamp() AS was_live, l.contended
            )
            -- the wake-up to send once this has committed: the grant to its waiter, else the key
            SELECT coalesce(r.was_live, m.was_live) AS was_live,
                   CASE WHEN h.waiter IS NOT NULL THEN {waiter_channel}
                        WHEN r.contended THEN '{channel}' END AS wake_up_channel,
                   CASE WHEN h.waiter IS NOT NULL THEN {handed_over}
                        WHEN r.contended THEN :key END AS wake_up_payload
              FROM (SELECT 1) AS one
              LEFT JOIN mine AS m ON true
              LEFT JOIN handed AS h ON true
              LEFT JOIN removed AS r ON true
             WHERE m.was_live IS NOT NULL OR r.was_live IS NOT NULL
            """;

    /**
     * Release with a minimum hold: a live lease of ours is set to end at acquisition plus the minimum hold (or now, if
     * that has passed), even when that is later than its current expiry; an expired one is left as it is, so nothing
     * expired is ever revived. The condition is on the owner token alone, so a renewal that holds the row is waited
     * for and then overruled, whichever side of the expiry the two statements read the clock on. A live lease gets a
     * fresh random owner token: a later renewal then finds nothing, so a released lease can never be extended again.
     * The minimum hold is in microseconds, the clock's resolution: one that has passed frees the key now. One clock
     * reading for the whole row; asynchronous commit, as for {@link #RELEASE}.
     */
    static final String RELEASE_KEEPING_MIN_HOLD = """
            UPDATE {table} AS l
               SET expires_at  = CASE WHEN l.expires_at > g.now
                                      THEN greatest(l.acquired_at + :min_hold_us * interval '1 microsecond', g.now)
                                      ELSE l.expires_at END,
                   owner_token = CASE WHEN l.expires_at > g.now THEN gen_random_uuid() ELSE l.owner_token END
              FROM (SELECT clock_timestamp() AS now, set_config('synchronous_commit', 'off', true) AS sc) AS g
             WHERE l.lock_key = :key AND l.owner_token = :owner::uuid
            RETURNING l.owner_token <> :owner::uuid AS was_live
            """;

    /** An operator's forced release: removes the key's row whoever owns it, and tells whether it was live. */
    static final String FORCE_RELEASE = """
            WITH released AS (
                DELETE FROM {table} WHERE lock_key = :key
                RETURNING lock_key, contended, expires_at > clock_timestamp() AS was_live
            ), notified AS (
                SELECT pg_notify('{channel}', lock_key) FROM released WHERE contended
            )
            SELECT was_live, (SELECT count(*) FROM notified) AS notified FROM released
            """;

    /**
     * The live leases of a key, without owner tokens: of several, the latest grant, the end of the last lease, and how
     * many are live.
     */
    static final String INSPECT = """
            SELECT l.lock_key, l.fencing_token, l.holder, l.acquired_at, l.expires_at, l.lease_mode, l.permits,
                   CASE WHEN l.lease_mode = 'exclusive' THEN 1
                        ELSE (SELECT count(*) FROM jsonb_each(l.holders) AS h WHERE {entry_expires} > clock_timestamp())
                   END AS leases
              FROM {table} AS l
             WHERE l.lock_key = :key AND l.expires_at > clock_timestamp()
            """;

    /**
     * Binds the caller's open transaction to our exclusive lease, in that transaction, right before it commits
     * (JdbcLeaseGuard), with a key-share lock on the key's row, held until the transaction ends. Every grant of a key
     * changes its row's fencing token, a key of the row (a unique index), or inserts the row after a delete; the lock
     * blocks both key updates and deletes, so no grant, hand-over, release or forced release of the key completes
     * before the transaction ends, while renewals, which only move {@code expires_at}, go on. The lock also reads the
     * row's latest version whatever the transaction's snapshot: under READ COMMITTED it follows the row to its newest
     * version (a grant that committed after the statement began is seen); under REPEATABLE READ, where the row is read
     * as of the snapshot, it fails with a serialization error if the row's key changed or the row was deleted since
     * then. So a renewal never fails the check, and one the snapshot does not show is accounted for by the expiry the
     * holder last had confirmed ({@code :confirmed}, by the database clock), never later than the row's own. A live
     * lease of ours then bounds how long the transaction may stay open: an idle transaction, or a statement, past the
     * lease's remaining time ends the session (or the statement), never raising a bound the session already had; where
     * the server has {@code transaction_timeout} (PostgreSQL 17+), so does the transaction as a whole however many
     * short statements it still runs (a transaction timeout already running keeps its own end). One reading of the
     * clock, after the row is locked.
     */
    static final String HOLD_UNTIL_COMMIT = """
            SELECT c.fencing_token IS NOT NULL AS found,
                   coalesce(c.ours, false) AS ours,
                   r.remaining_ms,
                   CASE WHEN c.ours AND r.remaining_ms > 0
                        THEN set_config('idle_in_transaction_session_timeout', r.idle_ms::bigint::text, true) IS NOT NULL
                             AND set_config('statement_timeout', r.statement_ms::bigint::text, true) IS NOT NULL
                             -- PostgreSQL 17+: the whole rest of the transaction too (its timer starts here)
                             AND (current_setting('transaction_timeout', true) IS NULL
                                  OR set_config('transaction_timeout', r.transaction_ms::bigint::text, true) IS NOT NULL)
                   END AS bounded
              FROM (VALUES (1)) AS one (row)
              LEFT JOIN LATERAL (
                  SELECT l.fencing_token,
                         l.owner_token = :owner::uuid AND l.fencing_token = :token AND l.lease_mode = 'exclusive' AS ours,
                         greatest(l.expires_at, :confirmed::timestamptz) AS expires_at
                    FROM {table} AS l
                   WHERE l.lock_key = :key
                     FOR KEY SHARE OF l
              ) AS c ON true
              CROSS JOIN LATERAL (
                  SELECT m.ms AS remaining_ms,
                         -- a setting reads as a duration such as 0, 250ms or 5min; pg_settings costs a millisecond
                         least(m.ms, 2147483647, nullif(ceil(extract(epoch FROM
                               current_setting('idle_in_transaction_session_timeout')::interval) * 1000), 0)) AS idle_ms,
                         least(m.ms, 2147483647, nullif(ceil(extract(epoch FROM
                               current_setting('statement_timeout')::interval) * 1000), 0)) AS statement_ms,
                         least(m.ms, 2147483647, nullif(ceil(extract(epoch FROM coalesce(
                               current_setting('transaction_timeout', true), '0')::interval) * 1000), 0)) AS transaction_ms
                    FROM (SELECT ceil(extract(epoch FROM (c.expires_at - clock_timestamp())) * 1000)::bigint AS ms) AS m
              ) AS r
            """;

    final NamedStatement acquire;

    final NamedStatement handOver;

    final NamedStatement renew;

    final NamedStatement acquireShared;

    final NamedStatement renewShared;

    final NamedStatement releaseShared;

    final NamedStatement releaseUncontended;

    final NamedStatement release;

    final NamedStatement releaseAndLeaveQueue;

    final NamedStatement wakeUp;

    final NamedStatement releaseKeepingMinHold;

    final NamedStatement forceRelease;

    final NamedStatement inspect;

    final NamedStatement holdUntilCommit;

    final NamedStatement acquireOrRegister;

    final NamedStatement withdraw;

    final NamedStatement acquireAll;

    final NamedStatement releaseAll;

    /** The statements of the lock table {@code table}. */
    PostgresStatements(TableName table) {
        Map<String, String> slots = new LinkedHashMap<>();
        slots.put("{draw_then_insert}", DRAW_THEN_INSERT);
        slots.put("{granted}", GRANTED);
        slots.put("{draw_lock}", DRAW_LOCK);
        slots.put("{take_expired}", TAKE_EXPIRED);
        slots.put("{remaining_ms}", REMAINING_MS);
        slots.put("{handed_over}", WaiterRelayStatements.HANDED_OVER);
        slots.put("{waiter_channel}", WaiterRelayStatements.WAITER_CHANNEL);
        slots.put("{joins}", SharedLeaseStatements.JOINS);
        slots.put("{takes_over}", SharedLeaseStatements.TAKES_OVER);
        slots.put("{entry_expires}", SharedLeaseStatements.ENTRY_EXPIRES);
        slots.put("{partial_set_mark}", MultiKeyStatements.PARTIAL_SET_MARK);
        slots.put("{table}", table.quotedTable());
        slots.put("{sequence}", table.quotedSequence());
        slots.put("{queue}", table.quotedQueueTable());
        slots.put("{channel}", table.channel());
        slots.put("{class_id}", Integer.toString(table.advisoryClassId()));
        slots.put("{queue_class_id}", Integer.toString(table.queueClassId()));
        this.acquire = resolve(ACQUIRE, slots);
        this.handOver = resolve(HAND_OVER, slots);
        this.renew = resolve(RENEW, slots);
        this.acquireShared = resolve(SharedLeaseStatements.ACQUIRE_SHARED, slots);
        this.renewShared = resolve(SharedLeaseStatements.RENEW_SHARED, slots);
        this.releaseShared = resolve(SharedLeaseStatements.RELEASE_SHARED, slots);
        this.releaseUncontended = resolve(RELEASE_UNCONTENDED, slots);
        this.release = resolve(RELEASE, slots);
        this.releaseAndLeaveQueue = resolve(PostgresLockQueue.RELEASE_AND_LEAVE_SQL, slots);
        this.wakeUp = resolve(ReleaseOutcome.WAKE_UP_SQL, slots);
        this.releaseKeepingMinHold = resolve(RELEASE_KEEPING_MIN_HOLD, slots);
        this.forceRelease = resolve(FORCE_RELEASE, slots);
        this.inspect = resolve(INSPECT, slots);
        this.holdUntilCommit = resolve(HOLD_UNTIL_COMMIT, slots);
        this.acquireOrRegister = resolve(WaiterRelayStatements.ACQUIRE_OR_REGISTER, slots);
        this.withdraw = resolve(WaiterRelayStatements.WITHDRAW, slots);
        this.acquireAll = resolve(MultiKeyStatements.ACQUIRE_ALL, slots);
        this.releaseAll = resolve(MultiKeyStatements.RELEASE_ALL, slots);
    }

    /** Fills the slots in order (fragments first, so that their own slots are filled too) and parses the names. */
    static NamedStatement resolve(String template, Map<String, String> slots) {
        String sql = template;
        for (Map.Entry<String, String> slot : slots.entrySet()) {
            sql = sql.replace(slot.getKey(), slot.getValue());
        }
        if (sql.indexOf('{') >= 0) {
            throw new IllegalStateException("unfilled slot in statement:\n" + sql);
        }
        return NamedStatement.parse(sql);
    }
}
