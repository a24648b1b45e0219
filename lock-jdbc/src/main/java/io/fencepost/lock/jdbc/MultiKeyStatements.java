package io.fencepost.lock.jdbc;

/**
 * The statement that takes a set of keys at once ({@link PostgresMultiKeyAcquire}), as a template that
 * {@link PostgresStatements} fills and parses with the others.
 */
final class MultiKeyStatements {

    private MultiKeyStatements() {}

    /**
     * What the statement raises when it would keep only part of a set, so that its transaction rolls back whole; the
     * store reads it as "busy". Text cast to a number is the one way plain SQL has to raise an error of its own.
     */
    static final String PARTIAL_SET_MARK = "fencepost: set partly granted elsewhere";

    /**
     * Takes every key of the set, or none, in one statement and one durable commit. A plain read comes first: a set with
     * a live lease on any key returns that key and how long it still runs, and takes no lock, draws no token and
     * writes nothing. Otherwise the statement takes every key's draw lock (as {@link PostgresStatements#ACQUIRE} does,
     * so that each key's tokens keep their grant order), in key order and without waiting: a key whose draw lock is
     * taken is being granted right now, so the set is busy (no row back), and a set never waits for one key while it
     * holds another, so overlapping sets cannot deadlock. Under the draw locks it inserts every key, taking over expired
     * leases as a single acquire does; each key draws its own token. A key granted elsewhere after the statement's
     * snapshot was taken (its grant committed in the moment before our draw lock) is found by the insert's conflict
     * but not by the plain read: the statement then raises {@link #PARTIAL_SET_MARK} rather than commit part of the
     * set, and the whole transaction rolls back. A grant commits durably; anything else asynchronously. A caller that
     * will wait marks the busy key's lease as waited for, as a single waiting acquire does, so that its release wakes
     * the key's waiters, this set among them; the mark switches the commit to asynchronous only where it marks a row,
     * which happens only when nothing is granted.
     */
    static final String ACQUIRE_ALL = """
            WITH k AS MATERIALIZED (
                SELECT r.lock_key, r.owner_token
                  FROM unnest(:keys::text[], :owners::uuid[]) AS r(lock_key, owner_token)
            ), held AS MATERIALIZED (
                SELECT l.lock_key, {remaining_ms} AS remaining_ms
                  FROM {table} AS l
                 WHERE l.lock_key = ANY (:keys::text[]) AND l.expires_at > clock_timestamp()
                 ORDER BY l.expires_at DESC
                 LIMIT 1
            ), marked AS (
                -- a caller that will wait marks the busy lease as waited for: its release then wakes the key's waiters
                UPDATE {table} AS l
                   SET contended = set_config('synchronous_commit', 'off', true) IS NOT NULL
                  FROM held AS h
                 WHERE :waiting AND l.lock_key = h.lock_key AND NOT l.contended AND l.expires_at > clock_timestamp()
            ), drawn AS MATERIALIZED (
                -- the draw lock of PostgresStatements, one per key of the set, never waited for
                SELECT bool_and(pg_try_advisory_xact_lock({class_id}, hashtext(s.lock_key))) AS all_drawn
                  FROM (SELECT k.lock_key FROM k WHERE NOT EXISTS (SELECT 1 FROM held) ORDER BY k.lock_key) AS s
            ), t AS MATERIALIZED (
                SELECT clock_timestamp() AS now, set_config('synchronous_commit', 'off', true) AS sc
                  FROM drawn
                 WHERE drawn.all_drawn
            ), ins AS (
                INSERT INTO {table} AS l (lock_key, owner_token, holder, fencing_token, acquired_at, expires_at, contended)
                SELECT k.lock_key, k.owner_token, :holder, nextval('{sequence}'), t.now,
                       t.now + :lease_ms * interval '1 millisecond', false
                  FROM t, k
                 ORDER BY k.lock_key
                ON CONFLICT (lock_key) DO UPDATE
                   SET {take_expired}
                 WHERE l.expires_at <= excluded.acquired_at
                RETURNING l.lock_key, l.fencing_token, l.acquired_at, l.expires_at
            ), counted AS MATERIALIZED (
                SELECT count(*) AS granted FROM ins
            )
            SELECT i.lock_key, i.fencing_token, i.acquired_at, i.expires_at, NULL::bigint AS remaining_ms,
                   CASE WHEN c.granted = cardinality(:keys::text[])
                        THEN set_config('synchronous_commit', 'on', true) = 'on'
                        ELSE ('{partial_set_mark}: ' || c.granted || ' of ' || cardinality(:keys::text[]))::int IS NULL
                   END AS granted
              FROM ins AS i, counted AS c
            UNION ALL
            SELECT h.lock_key, NULL, NULL, NULL, h.remaining_ms, false FROM held AS h
            """;

    /**
     * Ends the leases of a set that nobody waits for in one statement, as {@link PostgresStatements#RELEASE_UNCONTENDED}
     * ends one: deletes each row that is still ours and not marked as waited for, committed asynchronously, and returns
     * the keys it deleted with whether each lease was still live. A key it does not return was not ours any more,
     * someone waits for it, or another statement had its row locked: the store releases that one on its own.
     *
     * <p>The statement never waits for a row lock while it holds others: it skips a row locked at that moment (by the
     * batched renewal, or by a set acquire that met the row in its conflict), because two statements that each lock
     * several rows in orders of their own can deadlock, and PostgreSQL would then abort one of them. The pairs are
     * matched with {@code IN} rather than joined to {@code unnest}: for the join, PostgreSQL finds a plan for each
     * set's real size cheaper than the prepared statement's generic plan, and plans it afresh on every call. The keys
     * are also named with {@code = ANY}, which the generic plan reads through the primary key: matched by the pairs
     * alone, it scans the whole table once the table holds a few thousand keys.
     */
    static final String RELEASE_ALL = """
            WITH mine AS MATERIALIZED (
                SELECT l.lock_key
                  FROM {table} AS l
                 WHERE l.lock_key = ANY (:keys::text[])
                   AND (l.lock_key, l.owner_token) IN (SELECT * FROM unnest(:keys::text[], :owners::uuid[]))
                   AND NOT l.contended
                   FOR UPDATE OF l SKIP LOCKED
            )
            DELETE FROM {table} AS l
             USING (SELECT set_config('synchronous_commit', 'off', true)) AS g, mine AS m
             WHERE l.lock_key = m.lock_key
            RETURNING l.lock_key, l.expires_at > clock_timestamp() AS was_live
            """;
}
