package io.fencepost.lock.jdbc;

/**
 * The templates of shared leases and permits, kept apart from the exclusive ones in {@link PostgresStatements}, which
 * fills their slots with the rest. Such a key's row keeps its live leases in {@code holders} (by owner token: its
 * fencing token, holder, grant time and end), and the row's own columns describe the latest grant and the last lease
 * to end.
 */
final class SharedLeaseStatements {

    private SharedLeaseStatements() {}

    /** When the lease of holders entry {@code h} ends. */
    static final String ENTRY_EXPIRES = "(h.value ->> 'expires_at')::timestamptz";

    /** Whether a shared or permits request joins the live leases of row {@code l} (as of the request's now). */
    static final String JOINS = """
            (l.expires_at > excluded.acquired_at AND l.lease_mode = excluded.lease_mode AND CASE
                 WHEN l.lease_mode = 'shared'
                      THEN coalesce(l.exclusive_waits_until <= excluded.acquired_at, true)
                 WHEN l.lease_mode = 'permits'
                      THEN l.permits = excluded.permits
                           AND (SELECT count(*) FROM jsonb_each(l.holders) AS h
                                 WHERE {entry_expires} > excluded.acquired_at) < l.permits
                 ELSE false END)""";

    /**
     * Whether a shared or permits request takes row {@code l} over: all its leases, whatever their kind, have expired,
     * and no exclusive request waits to go first (the last readers' release keeps the row while one does).
     */
    static final String TAKES_OVER = """
            (l.expires_at <= excluded.acquired_at
             AND (excluded.lease_mode <> 'shared' OR coalesce(l.exclusive_waits_until <= excluded.acquired_at, true)))""";

    /**
     * A shared lease or one of n permits, in one statement under the draw lock. The key's row stands for all its live
     * leases: each is an entry of {@code holders}, keyed by its owner token, with its own fencing token; the row's
     * {@code expires_at} is the end of the last of them, so exclusive requests see the key busy until then, and its
     * owner token is a fresh random value that nobody owns. The request takes over a row whose leases have all expired,
     * joins the live leases of a row of its own kind (shared: while no exclusive request waits; permits: while fewer
     * than n are live, and only with the same n), or else, for a caller that will wait, marks the row as waited for. A
     * row of the other counted kind answers too, so that the caller learns of the disagreement. Tokens and clock come
     * from the source, under the draw lock, as in {@link #ACQUIRE}.
     */
    static final String ACQUIRE_SHARED = """
            INSERT INTO {table} AS l (lock_key, owner_token, holder, fencing_token, acquired_at, expires_at, contended,
                                      lease_mode, permits, holders)
            SELECT :key, gen_random_uuid(), :holder, g.token, g.now, g.until, false, :mode, :permits,
                   jsonb_build_object(:owner::uuid::text, jsonb_build_object(
                       'fencing_token', g.token, 'holder', :holder, 'acquired_at', g.now, 'expires_at', g.until))
              FROM (SELECT nextval('{sequence}') AS token, t.now, t.now + :lease_ms * interval '1 millisecond' AS until
                      FROM (SELECT clock_timestamp() AS now
                              FROM (SELECT set_config('synchronous_commit', 'off', true), {draw_lock} OFFSET 0) AS guard
                            OFFSET 0) AS t) AS g
            ON CONFLICT (lock_key) DO UPDATE
               SET owner_token   = CASE WHEN {takes_over} THEN excluded.owner_token ELSE l.owner_token END,
                   holder        = CASE WHEN {takes_over} OR {joins} THEN excluded.holder ELSE l.holder END,
                   fencing_token = CASE WHEN {takes_over} OR {joins} THEN excluded.fencing_token ELSE l.fencing_token END,
                   acquired_at   = CASE WHEN {takes_over} OR {joins} THEN excluded.acquired_at ELSE l.acquired_at END,
                   expires_at    = CASE WHEN {takes_over} THEN excluded.expires_at
                                        WHEN {joins} THEN greatest(l.expires_at, excluded.expires_at)
                                        ELSE l.expires_at END,
                   contended     = CASE WHEN {takes_over} THEN false WHEN {joins} THEN l.contended ELSE true END,
                   lease_mode    = CASE WHEN {takes_over} THEN excluded.lease_mode ELSE l.lease_mode END,
                   permits       = CASE WHEN {takes_over} THEN excluded.permits ELSE l.permits END,
                   holders       = CASE WHEN {takes_over} THEN excluded.holders
                                        -- the live entries and ours; expired ones are dropped on the way
                                        WHEN {joins} THEN (SELECT jsonb_object_agg(h.key, h.value) FROM jsonb_each(l.holders) AS h
                                                            WHERE {entry_expires} > excluded.acquired_at) || excluded.holders
                                        ELSE l.holders END,
                   exclusive_waits_until = CASE WHEN {takes_over} THEN NULL ELSE l.exclusive_waits_until END
             WHERE {takes_over} OR {joins} OR :waiting OR l.lease_mode <> excluded.lease_mode OR l.permits <> excluded.permits
            RETURNING CASE WHEN (l.holders -> :owner::uuid::text) IS NOT NULL
                           THEN set_config('synchronous_commit', 'on', true) = 'on' ELSE false END AS granted,
                      l.fencing_token, l.acquired_at, (l.holders -> :owner::uuid::text ->> 'expires_at')::timestamptz AS expires_at,
                      -- a permit frees when the first of them ends; shared leases when the last does
                      ceil(extract(epoch FROM (CASE WHEN l.lease_mode = 'permits'
                          THEN (SELECT min({entry_expires}) FROM jsonb_each(l.holders) AS h WHERE {entry_expires} > clock_timestamp())
                          ELSE l.expires_at END - clock_timestamp())) * 1000)::bigint AS remaining_ms,
                      l.lease_mode, l.permits
            """;

    /**
     * Extends the still-owned, unexpired shared leases and permits of the batch (as {@link #RENEW}), under the draw
     * lock of each of their keys, taken in one order by every such batch. The draw lock keeps grants of the key out,
     * so that the row's end of the last lease is recomputed from the entries without a grant in between; expired
     * entries are dropped on the way. The row is read as its latest version: an update that finds it changed since
     * the statement's snapshot rereads it.
     */
    static final String RENEW_SHARED = """
            WITH requested AS MATERIALIZED (
                SELECT r.lock_key, r.owner_token::text AS owner, r.lease_ms, r.min_hold_us
                  FROM unnest(:keys::text[], :owners::uuid[], :lease_ms::bigint[], :min_hold_us::bigint[])
                           AS r(lock_key, owner_token, lease_ms, min_hold_us)
            ), guard AS MATERIALIZED (
                SELECT clock_timestamp() AS now
                  FROM (SELECT set_config('synchronous_commit', 'on', true),
                               count(pg_advisory_xact_lock({class_id}, k.hash)::text)
                          FROM (SELECT DISTINCT hashtext(lock_key) AS hash FROM requested ORDER BY 1 OFFSET 0) AS k
                        OFFSET 0) AS locked
            ), renewed AS (
                UPDATE {table} AS l
                   SET (holders, expires_at) = (
                       SELECT jsonb_object_agg(n.key, n.value), coalesce(max((n.value ->> 'expires_at')::timestamptz), l.expires_at)
                         FROM (SELECT h.key, CASE WHEN q.owner IS NULL THEN h.value
                                   ELSE h.value || jsonb_build_object('expires_at', greatest(
                                            g.now + q.lease_ms * interval '1 millisecond',
                                            (h.value ->> 'acquired_at')::timestamptz + q.min_hold_us * interval '1 microsecond'))
                                   END AS value
                                 FROM jsonb_each(l.holders) AS h
                                 LEFT JOIN requested AS q ON q.lock_key = l.lock_key AND q.owner = h.key
                                WHERE {entry_expires} > g.now) AS n)
                  FROM guard AS g
                 WHERE l.lock_key IN (SELECT lock_key FROM requested) AND l.lease_mode <> 'exclusive'
                RETURNING l.lock_key, l.holders
            )
            SELECT q.lock_key, q.owner, (r.holders -> q.owner ->> 'expires_at')::timestamptz AS expires_at
              FROM requested AS q
              JOIN renewed AS r ON r.lock_key = q.lock_key
             WHERE (r.holders -> q.owner) IS NOT NULL
            """;

    /**
     * Ends our shared lease or permit, under the key's draw lock (so that no grant joins the row meanwhile): the entry
     * goes, or, with a minimum hold that has not passed, stays under a fresh random owner token until it has; the row
     * goes with its last live entry, unless an exclusive request waits to go first. The row is locked and read as its latest version first. A release that frees a
     * permit, or the key, notifies when someone waits. Asynchronous commit, as for {@link #RELEASE}.
     */
    static final String RELEASE_SHARED = """
            WITH guard AS MATERIALIZED (
                SELECT clock_timestamp() AS now
                  FROM (SELECT set_config('synchronous_commit', 'off', true), {draw_lock} OFFSET 0) AS locked
            ), mine AS MATERIALIZED (
                SELECT l.lock_key, l.lease_mode, l.contended, l.holders, l.exclusive_waits_until, g.now,
                       (l.holders -> :owner::uuid::text ->> 'acquired_at')::timestamptz AS acquired_at,
                       (l.holders -> :owner::uuid::text ->> 'expires_at')::timestamptz AS expires_at
                  FROM {table} AS l, guard AS g
                 WHERE l.lock_key = :key AND l.lease_mode <> 'exclusive' AND (l.holders -> :owner::uuid::text) IS NOT NULL
                   FOR UPDATE OF l
            ), outcome AS MATERIALIZED (
                SELECT m.lock_key, m.lease_mode, m.contended, m.expires_at > m.now AS was_live, rest.holders, rest.last_end,
                       m.now, coalesce(m.exclusive_waits_until > m.now, false) AS writer_waits
                  FROM mine AS m, LATERAL (
                      SELECT jsonb_object_agg(e.key, e.value) AS holders, max((e.value ->> 'expires_at')::timestamptz) AS last_end
                        FROM (SELECT h.key, h.value FROM jsonb_each(m.holders) AS h
                               WHERE h.key <> :owner::uuid::text AND {entry_expires} > m.now
                              UNION ALL
                              -- ours, ownerless, while its minimum hold runs
                              SELECT gen_random_uuid()::text,
                                     (m.holders -> :owner::uuid::text)
                                         || jsonb_build_object('expires_at', m.acquired_at + :min_hold_us * interval '1 microsecond')
                               WHERE m.expires_at > m.now AND m.acquired_at + :min_hold_us * interval '1 microsecond' > m.now
                             ) AS e) AS rest
            ), kept AS (
                -- a row without live leases stays while a waiting exclusive request holds readers back, as its mark
                UPDATE {table} AS l SET holders = o.holders, expires_at = coalesce(o.last_end, o.now)
                  FROM outcome AS o
                 WHERE l.lock_key = o.lock_key AND (o.holders IS NOT NULL OR o.writer_waits)
                RETURNING o.was_live,
                          CASE WHEN o.contended AND (o.lease_mode = 'permits' OR o.holders IS NULL)
                               THEN pg_notify('{channel}', l.lock_key) END
            ), emptied AS (
                DELETE FROM {table} AS l USING outcome AS o
                 WHERE l.lock_key = o.lock_key AND o.holders IS NULL AND NOT o.writer_waits
                RETURNING o.was_live, CASE WHEN o.contended THEN pg_notify('{channel}', l.lock_key) END
            )
            SELECT was_live FROM kept UNION ALL SELECT was_live FROM emptied
            """;
}
