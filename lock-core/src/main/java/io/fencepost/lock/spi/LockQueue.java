package io.fencepost.lock.spi;

import java.time.Duration;
import java.util.Optional;

/**
 * A store ability: waiting for a key in the store's own queue, so that a release wakes the next waiter inside the
 * store instead of by a message to every client. A place in the queue is only a turn to ask: the waiter at the head
 * still takes the key with an ordinary {@link LeaseStore#acquire} (or {@link WaiterRelay#acquireOrRegister}), which
 * decides by the lease as always; a place never grants, renews or ends a lease, so a lost, late or spurious turn can
 * only cost time. The engine holds the place while it waits at the head and while it holds the lease it got there,
 * and leaves it after that lease's release, which wakes the next waiter in the queue.
 *
 * <p>A place may hold a resource of the store (for PostgreSQL, a session of its own): a store bounds how many it
 * hands out and answers {@link Optional#empty()} past the bound, or where it cannot queue at all; the engine then
 * waits as it would without this ability.
 */
public interface LockQueue {

    /**
     * Waits up to {@code timeout} for the head of {@code key}'s queue.
     *
     * @return the place, once every waiter that came before has left; empty when the timeout passed first, or when the
     *     store cannot queue this wait now
     * @throws io.fencepost.lock.LockStoreException when the store failed; it then holds no place for the caller
     */
    Optional<Place> enter(String key, Duration timeout);

    /** The head of a key's queue. */
    interface Place {

        /** Whether this place was taken after waiting behind another one: the key is contended. */
        boolean waitedBehindOthers();

        /** Leaves the queue, waking the next waiter; idempotent, and never fails (a broken place frees itself). */
        void leave();

        /**
         * Releases the lease of {@code request} as {@link LeaseStore#release} does and leaves the queue, in one step
         * where the store can: the next waiter is woken as the release is done, not one round trip later. The place is
         * left also when the release fails.
         */
        boolean releaseAndLeave(ReleaseRequest request);
    }
}
