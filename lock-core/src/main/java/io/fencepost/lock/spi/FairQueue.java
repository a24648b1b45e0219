package io.fencepost.lock.spi;

import java.time.Duration;

/**
 * A store ability: serves the waiters of a key in arrival order across all clients
 * ({@link io.fencepost.lock.LockOptions#fair()}). The engine finds it once, when it is built; asking a store without
 * it for fair locking fails with a clear error.
 */
public interface FairQueue {

    /**
     * Takes a place in {@code key}'s queue for the client {@code waiterId}, valid for {@code ttl} unless refreshed.
     *
     * @return the ticket; tickets are served in increasing order
     */
    QueueTicket enqueue(String key, String waiterId, Duration ttl);

    /**
     * Like {@link LeaseStore#acquire}, but grants only when no live ticket lower than {@code ticket} waits for the
     * key. A grant removes the ticket; a failure refreshes every ticket of the same client on the key for another
     * ticket lifetime. A ticket that is {@link QueueTicket#NOT_QUEUED not queued} is granted only while nobody waits.
     */
    AcquireResult acquireInTurn(AcquireRequest request, QueueTicket ticket);

    /** Gives up a place in the queue (the waiter stopped waiting). */
    void dequeue(QueueTicket ticket);
}
