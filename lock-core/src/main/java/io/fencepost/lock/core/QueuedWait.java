package io.fencepost.lock.core;

import io.fencepost.lock.internal.RecentKeys;

/**
 * One registered wait's use of the store's queue ({@link QueuePlaces}). Outside the queue the waiter only looks at the
 * key: it registers nothing, so a release never hands it the key while it waits in the store's queue, where it could
 * not notice. At the head it waits as a registered waiter does. A wait the queue refuses, or that runs out behind a
 * place that stays taken (its holder stopped, or holds the key for long), waits registered for the rest of the call.
 */
final class QueuedWait {

    private final QueuePlaces places;

    private final HeldLeases held;

    private final RecentKeys busyKeys;

    private final String key;

    private final String ownerToken;

    /** Waits registered for the rest of the call. */
    private boolean out;

    private boolean firstAtHeadAsked;

    private boolean joinedBefore;

    QueuedWait(QueuePlaces places, HeldLeases held, RecentKeys busyKeys, String key, String ownerToken) {
        this.places = places;
        this.held = held;
        this.busyKeys = busyKeys;
        this.key = key;
        this.ownerToken = ownerToken;
        this.out = !places.available();
    }

    /** Whether the waiter is to wait in the queue and is not at its head. */
    boolean outside() {
        return !out && !places.holds(key);
    }

    /**
     * Whether this wait is at the head of the queue and has not asked there yet: the release before it has just left
     * the place, so the key is most likely free, and a plain attempt (which registers nothing) is the cheapest way to
     * take it.
     */
    boolean firstAtHead() {
        if (out || firstAtHeadAsked || !places.holds(key)) {
            return false;
        }
        firstAtHeadAsked = true;
        return true;
    }

    /**
     * Before the wait's first attempt: on a key this manager's waits found busy a moment ago, waits up to {@code nanos}
     * for the head of the queue, so that this wait's turn comes after those who waited first. Later calls do nothing.
     */
    void joinBeforeFirstAttempt(long nanos) {
        if (!joinedBefore && outside() && hot()) {
            enter(nanos);
        }
        joinedBefore = true;
    }

    /** Whether this manager's waits found the key busy a moment ago: a new wait then joins the queue first. */
    boolean hot() {
        return busyKeys.contains(key);
    }

    /** An attempt made outside the queue found the key busy. */
    void foundBusy() {
        busyKeys.mark(key);
    }

    /**
     * Waits up to {@code nanos} for the head of the queue. Not while a lease of this manager is on the key: its release
     * hands over locally, which a wait in the store would notice only when it ends.
     *
     * @return whether this manager is at the head now
     */
    boolean enter(long nanos) {
        if (!outside()) {
            return !out;
        }
        if (!held.on(key).isEmpty()) {
            return false;
        }
        QueuePlaces.Outcome outcome = places.enter(key, ownerToken, nanos, this::foundBusy);
        out = outcome != QueuePlaces.Outcome.HEAD;
        return !out;
    }

    /** The wait ended; without the lease, its place goes to the next waiter. A lease keeps it. */
    void end(boolean granted) {
        if (!granted) {
            places.leave(key, ownerToken);
        }
    }
}
