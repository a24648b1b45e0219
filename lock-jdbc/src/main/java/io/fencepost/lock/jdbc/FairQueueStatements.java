package io.fencepost.lock.jdbc;

/**
 * The statements of the ticket queue ({@link PostgresFairQueue}), as templates that {@link PostgresStatements} fills
 * and parses with the others.
 */
final class FairQueueStatements {

    private FairQueueStatements() {}

    /**
     * Fair mode's acquire: as {@link PostgresStatements#ACQUIRE}, but the key is taken only when no live ticket lower than ours waits
     * for it. A grant removes our ticket; a failure refreshes all of this client's tickets on the key, marks the lease
     * as waited for, and clears tickets that lapsed (their waiters are gone).
     */
    static final String FAIR_ACQUIRE = """
            {draw_then_insert}
                WHERE NOT EXISTS (
                    SELECT 1 FROM {queue} q WHERE q.lock_key = :key AND q.ticket < :ticket AND q.expires_at > t.now)
                ON CONFLICT (lock_key) DO UPDATE
                   SET {take_expired}
                 WHERE l.expires_at <= excluded.acquired_at OR NOT l.contended OR l.lease_mode <> 'exclusive'
                RETURNING {granted}, l.fencing_token, l.acquired_at, l.expires_at,
                          {remaining_ms} AS remaining_ms, l.lease_mode, l.permits
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
            SELECT granted, fencing_token, acquired_at, expires_at, remaining_ms, lease_mode, permits FROM ins
            UNION ALL
            SELECT false, NULL, NULL, NULL, ceil(extract(epoch FROM (c.expires_at - clock_timestamp())) * 1000)::bigint,
                   c.lease_mode, c.permits
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
}
