package io.fencepost.lock.core;

import io.fencepost.lock.internal.LogSafe;
import io.fencepost.lock.internal.RecentKeys;
import io.fencepost.lock.spi.LockQueue;
import io.fencepost.lock.spi.ReleaseRequest;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This manager's places in the store's queues ({@link LockQueue}), by key. A place belongs to one owner token: the
 * registered waiter at the head of the key's line enters the queue under the token its grant will have, so the lease
 * it gets keeps the place without a word; a local hand-over passes it to the next holder's token, and the owner leaves
 * it when its lease is released in the store or its wait ends without the lease.
 */
final class QueuePlaces {

    private static final System.Logger LOG = System.getLogger(QueuePlaces.class.getName());

    private record Entry(LockQueue.Place place, String ownerToken) {}

    /** How a wait in a queue ended. */
    enum Outcome {
        /** This manager holds the place now. */
        HEAD,
        /** The wait ran out, behind a place that stayed taken. */
        TIMED_OUT,
        /** The store could not queue the wait (no queue, a bound reached, a failure). */
        REFUSED
    }

    /** Null when the store has no queue. */
    private final LockQueue queue;

    /** The longest single wait in a queue: a waiter re-checks the key in the store at least this often. */
    private final long maxWaitNanos;

    /** This manager's leases: a wait does not join the queue of a key that one of them holds. */
    private final HeldLeases held;

    private final ConcurrentHashMap<String, Entry> byKey = new ConcurrentHashMap<>();

    QueuePlaces(LockQueue queue, Duration maxWait, HeldLeases held) {
        this.queue = queue;
        this.maxWaitNanos = maxWait.toNanos();
        this.held = held;
    }

    /** One registered wait's use of the queue of {@code key}, under the owner token its grant will have. */
    QueuedWait waitFor(String key, String ownerToken, RecentKeys busyKeys) {
        return new QueuedWait(this, held, busyKeys, key, ownerToken);
    }

    boolean available() {
        return queue != null;
    }

    /** Whether this manager holds the place of {@code key}'s queue. */
    boolean holds(String key) {
        return byKey.containsKey(key);
    }

    /**
     * Waits up to {@code nanos} (at most the longest single wait) for the head of {@code key}'s queue, for {@code
     * ownerToken}. A failure of the store is no failure of the wait, only a place not taken: the waiter asks the store
     * next, and learns of the failure there.
     *
     * @param contended called when the place was taken behind another one
     */
    Outcome enter(String key, String ownerToken, long nanos, Runnable contended) {
        if (byKey.containsKey(key)) {
            return Outcome.HEAD;
        }
        long wait = Math.min(nanos, maxWaitNanos);
        if (queue == null || wait <= 0) {
            return Outcome.REFUSED;
        }
        long start = System.nanoTime();
        Optional<LockQueue.Place> place;
        try {
            place = queue.enter(key, Duration.ofNanos(wait));
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "could not wait in the queue of lock ''{0}'': {1}", LogSafe.text(key), e.toString());
            return Outcome.REFUSED;
        }
        if (place.isEmpty()) {
            // A store answers at once when it will not queue; after waiting, the place stayed taken.
            return System.nanoTime() - start >= wait ? Outcome.TIMED_OUT : Outcome.REFUSED;
        }
        if (place.get().waitedBehindOthers()) {
            contended.run();
        }
        if (byKey.putIfAbsent(key, new Entry(place.get(), ownerToken)) != null) {
            place.get().leave();
        }
        return Outcome.HEAD;
    }

    /** A local hand-over: the place of {@code key}, if {@code from} owns it, now belongs to {@code to}. */
    void pass(String key, String from, String to) {
        byKey.computeIfPresent(
                key, (k, entry) -> entry.ownerToken().equals(from) ? new Entry(entry.place(), to) : entry);
    }

    /** Whether {@code ownerToken} owns the place of {@code key}'s queue. */
    boolean owns(String key, String ownerToken) {
        Entry entry = byKey.get(key);
        return entry != null && entry.ownerToken().equals(ownerToken);
    }

    /** Leaves the place of {@code key} if {@code ownerToken} owns it, waking the next waiter in the store's queue. */
    void leave(String key, String ownerToken) {
        take(key, ownerToken).ifPresent(LockQueue.Place::leave);
    }

    /** Removes the place of {@code key} from this manager's if {@code ownerToken} owns it. */
    private Optional<LockQueue.Place> take(String key, String ownerToken) {
        Entry[] taken = new Entry[1];
        byKey.computeIfPresent(key, (k, entry) -> {
            if (!entry.ownerToken().equals(ownerToken)) {
                return entry;
            }
            taken[0] = entry;
            return null;
        });
        return Optional.ofNullable(taken[0]).map(Entry::place);
    }

    /**
     * Releases {@code request}'s lease and leaves the place of its key in one step, when {@code request}'s owner token
     * owns the place; empty when it does not (the caller releases in the store).
     */
    Optional<Boolean> releaseAndLeave(ReleaseRequest request) {
        return take(request.key(), request.ownerToken()).map(place -> place.releaseAndLeave(request));
    }

    /** Leaves every place: the manager closes. */
    void leaveAll() {
        byKey.keySet().forEach(key -> {
            Entry entry = byKey.remove(key);
            if (entry != null) {
                entry.place().leave();
            }
        });
    }
}
