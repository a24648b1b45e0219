package io.fencepost.lock.jdbc;

/**
 * The statements of waiter registrations ({@link PostgresWaiterRelay}), as templates that {@link PostgresStatements}
 * fills and parses with the others; the release that serves a registration is {@link PostgresStatements#RELEASE}.
 */
final class WaiterRelayStatements {

    private WaiterRelayStatements() {}

    /**
     * The message that tells a registered waiter it holds the lease: its registration, the grant's fencing token,
     * times in microseconds since the epoch, and a check that only the holder of the grant's owner token can compute
     * (see {@code WaiterRelayMessages}).
     */
    static final String HANDED_OVER = """
            'fencepost-grant:' || h.waiter || ':' || h.fencing_token
                   || ':' || (extract(epoch FROM h.acquired_at) * 1000000)::bigint
                   || ':' || (extract(epoch FROM h.expires_at) * 1000000)::bigint
                   || ':' || left(encode(sha256(convert_to(h.owner_token::text || ':' || h.fencing_token, 'UTF8')), 'hex'), 16)""";

    /**
     * The channel of the store whose waiter registration {@code h} is: its tag is the first 4 hex digits of the
     * registration id ({@link WaiterTag}), so only that store's listener hears the message.
     */
    static final String WAITER_CHANNEL = "'{channel}_' || left(h.waiter::text, 4)";

    /**
     * A waiting exclusive attempt that registers: as {@link PostgresStatements#ACQUIRE} for a waiter (takes a free or expired key, else
     * marks the lease as waited for), and, unless granted, registers the waiter in the queue table with what it would
     * be granted, or refreshes its registration. A grant removes the registration; a key already handed to our owner
     * token is returned as granted, also to a waiter in turn behind an older registration, and never registers it
     * again. Lapsed registrations of the key are cleared. A registration in turn (fair mode)
     * takes even a free key only when no older live registration waits for it. Behind shared leases or permits the
     * waiter does not register: their releases hand nothing over, they only wake it.
     */
    static final String ACQUIRE_OR_REGISTER = """
            {draw_then_insert}
                 WHERE NOT (:in_turn AND EXISTS (
                       SELECT 1 FROM {queue} AS q
                        WHERE q.lock_key = :key AND q.expires_at > t.now AND q.waiter <> :registration::uuid
                          AND q.ticket < coalesce((SELECT o.ticket FROM {queue} AS o
                                                    WHERE o.lock_key = :key AND o.waiter = :registration::uuid),
                                                  9223372036854775807)))
                ON CONFLICT (lock_key) DO UPDATE
                   SET {take_expired}
                RETURNING {granted},
                          l.fencing_token, l.acquired_at, l.expires_at,
                          CASE WHEN l.lease_mode = 'shared' THEN least({remaining_ms}, :precedence_ms / 2)
                               ELSE {remaining_ms} END AS remaining_ms,
                          l.lease_mode, l.permits
            ), ours AS MATERIALIZED (
                -- whether a release handed us the key already (its message is on its way), by the statement's one
                -- clock reading
                SELECT EXISTS (SELECT 1 FROM {table} AS o
                                WHERE o.lock_key = :key AND o.owner_token = :owner::uuid AND o.expires_at > t.now)
                       AS handed
                  FROM t
            ), marked AS (
                -- in turn behind an older registration, the statement did not touch the lease: still mark it, so
                -- that its release serves the registrations or wakes them
                UPDATE {table} AS m SET contended = true
                 WHERE m.lock_key = :key AND NOT m.contended AND NOT EXISTS (SELECT 1 FROM ins)
            ), registered AS (
                INSERT INTO {queue} (lock_key, ticket, waiter, expires_at, owner_token, holder, lease_ms)
                SELECT :key, nextval('{sequence}'), :registration::uuid, t.now + :ttl_ms * interval '1 millisecond',
                       :owner::uuid, :holder, :lease_ms
                  FROM t
                 WHERE NOT EXISTS (SELECT 1 FROM ins WHERE granted OR lease_mode <> 'exclusive')
                   AND NOT EXISTS (SELECT 1 FROM {queue} AS q WHERE q.lock_key = :key AND q.waiter = :registration::uuid)
                   -- never queue again behind a key handed to us, or a later release would hand the key to a
                   -- registration whose wait has ended
                   AND NOT (SELECT handed FROM ours)
            ), refreshed AS (
                UPDATE {queue} AS q SET expires_at = t.now + :ttl_ms * interval '1 millisecond'
                  FROM t
                 WHERE q.lock_key = :key AND q.waiter = :registration::uuid
                   AND NOT EXISTS (SELECT 1 FROM ins WHERE granted)
            ), cleared AS (
                DELETE FROM {queue} AS q USING t
                 WHERE q.lock_key = :key
                   AND (q.expires_at <= t.now OR (q.waiter = :registration::uuid AND EXISTS (SELECT 1 FROM ins WHERE granted)))
            )
            SELECT granted, fencing_token, acquired_at, expires_at, remaining_ms, lease_mode, permits FROM ins
            UNION ALL
            -- in turn behind an older registration: busy, unless a release already handed the key to us
            SELECT o.handed, CASE WHEN o.handed THEN l.fencing_token END, CASE WHEN o.handed THEN l.acquired_at END,
                   CASE WHEN o.handed THEN l.expires_at END, {remaining_ms}, l.lease_mode, l.permits
              FROM {table} AS l CROSS JOIN ours AS o
             WHERE l.lock_key = :key AND NOT EXISTS (SELECT 1 FROM ins)
            """;

    /**
     * Ends a registration, and tells whether the key was handed to it meanwhile. The lease row is read with a lock
     * after the registration is gone, so that a release that was handing the key over as we withdrew has committed and
     * its version of the row is the one judged, whatever this statement's snapshot.
     */
    static final String WITHDRAW = """
            WITH gone AS (
                DELETE FROM {queue} AS q
                 USING (SELECT set_config('synchronous_commit', 'off', true)) AS g
                 WHERE q.lock_key = :key AND q.waiter = :registration::uuid
                RETURNING q.ticket
            ), done AS MATERIALIZED (
                SELECT count(*) AS withdrawn FROM gone
            )
            SELECT coalesce(bool_or(h.ours), false) AS handed
              FROM done AS d
              LEFT JOIN LATERAL (
                  -- locked by its key alone: a row that a release changed after this statement's snapshot is then
                  -- read in its latest version, and whether it is ours is judged on that version (a condition on the
                  -- owner here would be judged on the snapshot's version, which a release handing it to us just
                  -- now does not match)
                  SELECT l.owner_token = :owner::uuid AS ours FROM {table} AS l
                   WHERE l.lock_key = :key AND d.withdrawn >= 0
                     FOR KEY SHARE OF l
              ) AS h ON true
            """;
}
