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
    UNORDERED_HAND_OVER;

    /** Whether the checker must find violations in a run of this mode. */
    boolean broken() {
        return this != CORRECT;
    }
}
