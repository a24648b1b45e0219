package io.fencepost.lock.reliability.checker;

/**
 * What the checker's workers run: the real thing, or a deliberately broken variant that the checker must catch.
 */
public enum WorkerMode {

    /** {@code PostgresLockManager}, writes through {@code JdbcFencingGuard}: no violation may be found. */
    CORRECT,

    /** A store whose acquire ignores expiry: a busy key is force-released and taken. */
    IGNORES_EXPIRY,

    /** A store whose release skips the owner check: a late release deletes whoever holds the key now. */
    BLIND_RELEASE,

    /** A store that, for a busy key, answers "granted" without asking the database. */
    PHANTOM_GRANT,

    /** The real store, but writes skip the fencing guard: paused holders' late writes get in. */
    UNFENCED,

    /**
     * The real store, but a local hand-over draws its fencing token without the per-key draw lock: an acquire of
     * another client that drew earlier can be granted after it, with a lower token. Its runs pause every insert
     * briefly after the draw, so that the race shows within a short run.
     */
    UNORDERED_HAND_OVER,

    /**
     * The real store with its lock queue, but a waiter at the head of a key's queue is answered "granted" without the
     * lease's row being asked: a wake-up taken for a grant, while the key may still be held by one who took it
     * without the queue. The checker finds grants that the store never made.
     */
    QUEUE_PLACE_GRANTS,

    /** A store asked for n permits that lets n + 1 in: it counts one permit too few. */
    PERMITS_PLUS_ONE,

    /**
     * A store whose release of a shared lease ends the key's row at once, forgetting the other readers still live: an
     * exclusive request then takes the key from under them.
     */
    RELEASE_FORGETS_READERS,

    /**
     * A store that lets a shared request join live shared leases by drawing its fencing token before it waits for the
     * key's row and without the draw lock: another grant that drew later can write the row first, with a higher token.
     */
    UNORDERED_SHARED_GRANT;

    /** Whether the checker must find violations in a run of this mode. */
    boolean broken() {
        return this != CORRECT;
    }
}
