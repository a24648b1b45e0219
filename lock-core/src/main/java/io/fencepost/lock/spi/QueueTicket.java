package io.fencepost.lock.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * A place in a key's {@link FairQueue}.
 *
 * @param key the key waited for
 * @param waiterId the waiting client: one id per lock manager, whose attempts refresh all its tickets on the key
 * @param number the place: lower numbers are served first; {@link #NOT_QUEUED} for a caller that does not wait
 * @param ttl how long the ticket stays valid unless an attempt of its client refreshes it: a dead client's tickets
 *     lapse and stop holding up the queue
 */
public record QueueTicket(String key, String waiterId, long number, Duration ttl) {

    /** The number of a caller that took no place: it is served only while nobody is queued. */
    public static final long NOT_QUEUED = Long.MAX_VALUE;

    public QueueTicket {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(waiterId, "waiterId");
        AcquireRequest.requirePositive(ttl, "ticket lifetime", key);
    }

    /** A caller that does not wait and so takes no place. */
    public static QueueTicket notQueued(String key, String waiterId, Duration ttl) {
        return new QueueTicket(key, waiterId, NOT_QUEUED, ttl);
    }

    /** Whether this ticket holds a place in the queue. */
    public boolean queued() {
        return number != NOT_QUEUED;
    }
}
