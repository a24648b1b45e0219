package io.fencepost.lock.jdbc;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every lock statement of the PostgreSQL store, in one place: each runs in its own autocommit transaction and
 * decides by the database clock ({@code clock_timestamp()}). Slots in braces are filled once per lock table: the
 * shared fragments first, then the validated, quoted names ({@code {table}}, {@code {sequence}}, {@code {queue}}),
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

    /** The conflict's update in an acquire: take over an expired lease, else leave it and mark it as waited for. */
    private static final String TAKE_EXPIRED = """
            owner_token   = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.owner_token ELSE l.owner_token END,
                   holder        = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.holder ELSE l.holder END,
                   fencing_token = CASE WHEN l.expires_at <= excluded.acquired_at THEN nextval('{sequence}') ELSE l.fencing_token END,
                   acquired_at   = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.acquired_at ELSE l.acquired_at END,
                   expires_at    = CASE WHEN l.expires_at <= excluded.acquired_at THEN excluded.expires_at ELSE l.expires_at END,
                   contended     = l.expires_at > excluded.acquired_at""";

    /** How long the lease of row {@code l} still runs, in whole milliseconds rounded up. */
    private static final String REMAINING_MS =
            "ceil(extract(epoch FROM (l.expires_at - clock_timestamp())) * 1000)::bigint";

    /**
     * Takes the key when it is free or expired, in one statement, under the draw lock. No CTE and no second branch:
     * as close to a bare {@code INSERT ... ON CONFLICT} as these guarantees allow. A busy key returns a row only to
     * a caller that will wait, from the conflict's row lock, so it always sees the holder's latest lease; a caller
     * that does not wait gets no row and writes nothing. An attempt that loses commits asynchronously (its row lock or
     * waiter mark needs no WAL flush); a grant switches back to a durable commit in its RETURNING, since a grant and
     * its fencing token must survive a crash whatever the server's default.
     */
    static final String ACQUIRE = """
            INSERT INTO {table} AS l (lock_key, owner_token, holder, fencing_token, acquired_at, expires_at, contended)
            SELECT :key, :owner::uuid, :holder, nextval('{sequence}'), t.now, t.now + :lease_ms * interval '1 millisecond', false
              -- one reading of the clock, taken once the draw lock is ours: the lease is exactly as long as asked
              FROM (SELECT clock_timestamp() AS now
                      FROM (SELECT set_config('synchronous_commit', 'off', true), {draw_lock} OFFSET 0) AS guard) AS t
            ON CONFLICT (lock_key) DO UPDATE
               SET {take_expired}
             -- take over an expired lease; or, for a caller that will wait, mark a live one as waited for (its release
             -- then notifies) and learn how long it still runs
             WHERE l.expires_at <= excluded.acquired_at OR :waiting
            RETURNING CASE WHEN l.owner_token = :owner::uuid THEN set_config('synchronous_commit', 'on', true) = 'on'
                           ELSE false END AS granted,
                      l.fencing_token, l.acquired_at, l.expires_at, {remaining_ms} AS remaining_ms
            """;

    /**
     * Hands our live lease to a new grant of this client (a local waiter): new owner token and holder, a new fencing
     * token, a fresh lease; durably, like a grant. {@code contended} is kept, so that a waiter elsewhere is still woken
     * by the next release. The draw lock comes first although we own the row: an acquire of another client may have
     * drawn its token already, and once our waiter releases, that acquire needs no row of ours and would be granted
     * with its older token. The statement locks the row only after its source, which takes the draw lock, has run.
     */
    static final String HAND_OVER = """
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
            """;

    /** Extends every still-owned, unexpired lease of the batch; durably, like a grant. */
    static final String RENEW = """
            UPDATE {table} AS l
               SET expires_at = clock_timestamp() + r.lease_ms * interval '1 millisecond'
              FROM (SELECT set_config('synchronous_commit', 'on', true)) AS g,
                   unnest(:keys::text[], :owners::uuid[], :lease_ms::bigint[]) AS r(lock_key, owner_token, lease_ms)
             WHERE l.lock_key = r.lock_key
               AND l.owner_token = r.owner_token
               AND l.expires_at > clock_timestamp()
            RETURNING l.lock_key, l.expires_at
            """;

    /**
     * Deletes our row, expired or not, and tells whether it was still live. Committed asynchronously on purpose: a
     * release lost in a crash only keeps the key locked until its lease expires, which never endangers mutual
     * exclusion or fencing. Only a release that someone waits for pays for NOTIFY, which serializes commits
     * server-wide.
     */
    static final String RELEASE = """
            DELETE FROM {table} AS l
             USING (SELECT set_config('synchronous_commit', 'off', true)) AS g
             WHERE l.lock_key = :key AND l.owner_token = :owner::uuid
            RETURNING l.expires_at > clock_timestamp() AS was_live,
                      CASE WHEN l.contended THEN pg_notify('{channel}', l.lock_key) END AS notified
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

    /** The live lease on a key, without its owner token. */
    static final String INSPECT = """
            SELECT lock_key, fencing_token, holder, acquired_at, expires_at
              FROM {table}
             WHERE lock_key = :key AND expires_at > clock_timestamp()
            """;

    /**
     * Fair mode's acquire: as {@link #ACQUIRE}, but the key is taken only when no live ticket lower than ours waits
     * for it. A grant removes our ticket; a failure refreshes all of this client's tickets on the key, marks the lease
     * as waited for, and clears tickets that lapsed (their waiters are gone).
     */
    static final String FAIR_ACQUIRE = """
            WITH guard AS MATERIALIZED (
                SELECT set_config('synchronous_commit', 'on', true) AS sc, {draw_lock} AS lk
            ), t AS MATERIALIZED (
                SELECT clock_timestamp() AS now FROM guard
            ), ins AS (
                INSERT INTO {table} AS l (lock_key, owner_token, holder, fencing_token, acquired_at, expires_at, contended)
                SELECT :key, :owner::uuid, :holder, nextval('{sequence}'), t.now, t.now + :lease_ms * interval '1 millisecond', false
                FROM t
                WHERE NOT EXISTS (
                    SELECT 1 FROM {queue} q WHERE q.lock_key = :key AND q.ticket < :ticket AND q.expires_at > t.now)
                ON CONFLICT (lock_key) DO UPDATE
                   SET {take_expired}
                 WHERE l.expires_at <= excluded.acquired_at OR NOT l.contended
                RETURNING l.owner_token = :owner::uuid AS granted, l.fencing_token, l.acquired_at, l.expires_at,
                          {remaining_ms} AS remaining_ms
            ), marked AS (
                -- queued behind an earlier ticket: still mark the lease, so that its release wakes the queue
                UPDATE {table} AS m SET contended = true
                 WHERE m.lock_key = :key AND NOT m.contended AND NOT EXISTS (SELECT 1 FROM ins)
            ), served AS (
                DELETE FROM {queue} q
                 WHERE q.lock_key = :key AND q.ticket = :ticket AND EXISTS (SELECT 1 FROM ins WHERE granted)
            ), refreshed AS (
                UPDATE {queue} q SET expires_at = clock_timestamp() + :ttl_ms * interval '1 millisecond'
                 WHERE q.lock_key = :key AND q.waiter = :waiter::uuid AND NOT EXISTS (SELECT 1 FROM ins WHERE granted)
            ), lapsed AS (
                DELETE FROM {queue} q USING t
                 WHERE q.lock_key = :key AND q.expires_at <= t.now AND q.waiter <> :waiter::uuid
            )
            SELECT granted, fencing_token, acquired_at, expires_at, remaining_ms FROM ins
            UNION ALL
            SELECT false, NULL, NULL, NULL, ceil(extract(epoch FROM (c.expires_at - clock_timestamp())) * 1000)::bigint
            FROM {table} c WHERE c.lock_key = :key AND NOT EXISTS (SELECT 1 FROM ins)
            """;

    /** Fair mode: a place in the key's queue. Not durable on purpose: a lost ticket only loses a place. */
    static final String ENQUEUE = """
            INSERT INTO {queue} (lock_key, ticket, waiter, expires_at)
            SELECT :key, nextval('{sequence}'), :waiter::uuid, clock_timestamp() + :ttl_ms * interval '1 millisecond'
              FROM (SELECT set_config('synchronous_commit', 'off', true)) AS g
            RETURNING ticket
            """;

    /** Fair mode: leaving the queue without the key. */
    static final String DEQUEUE = """
            DELETE FROM {queue} AS q
             USING (SELECT set_config('synchronous_commit', 'off', true)) AS g
             WHERE q.lock_key = :key AND q.ticket = :ticket
            RETURNING q.ticket
            """;

    final NamedStatement acquire;

    final NamedStatement handOver;

    final NamedStatement renew;

    final NamedStatement release;

    final NamedStatement releaseKeepingMinHold;

    final NamedStatement forceRelease;

    final NamedStatement inspect;

    final NamedStatement fairAcquire;

    final NamedStatement enqueue;

    final NamedStatement dequeue;

    /** The statements of the lock table {@code table}. */
    PostgresStatements(TableName table) {
        Map<String, String> slots = new LinkedHashMap<>();
        slots.put("{draw_lock}", DRAW_LOCK);
        slots.put("{take_expired}", TAKE_EXPIRED);
        slots.put("{remaining_ms}", REMAINING_MS);
        slots.put("{table}", table.quotedTable());
        slots.put("{sequence}", table.quotedSequence());
        slots.put("{queue}", table.quotedQueueTable());
        slots.put("{channel}", table.channel());
        slots.put("{class_id}", Integer.toString(table.advisoryClassId()));
        this.acquire = resolve(ACQUIRE, slots);
        this.handOver = resolve(HAND_OVER, slots);
        this.renew = resolve(RENEW, slots);
        this.release = resolve(RELEASE, slots);
        this.releaseKeepingMinHold = resolve(RELEASE_KEEPING_MIN_HOLD, slots);
        this.forceRelease = resolve(FORCE_RELEASE, slots);
        this.inspect = resolve(INSPECT, slots);
        this.fairAcquire = resolve(FAIR_ACQUIRE, slots);
        this.enqueue = resolve(ENQUEUE, slots);
        this.dequeue = resolve(DEQUEUE, slots);
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
