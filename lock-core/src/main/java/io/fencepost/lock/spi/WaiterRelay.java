package io.fencepost.lock.spi;

import java.util.function.Consumer;

/**
 * A store ability: waiters of every client register with the store, and a release of a key that a live registration
 * waits for hands the lease to the oldest of them in the same durable step (a new owner, a new fencing token ordered
 * like an acquire's, a fresh lease), so that the key is never free in between and the releasing client cannot take
 * it straight back. The store then tells the waiter, which finds itself the holder without another round trip. A
 * registration lapses unless its waiter refreshes it, so a dead waiter can delay a key by at most one lease (the one
 * it was handed) and never block it. The engine finds this ability once, when it is built; without it, a release
 * frees the key and wakes the waiters, which race for it, and fair mode is refused. Fair and ordinary waiters differ
 * only in {@link Registration#inTurn()}.
 */
public interface WaiterRelay {

    /**
     * Like {@link LeaseStore#acquire} for a waiting exclusive request; when the key stays busy, the request is
     * registered (or its registration refreshed for another {@link Registration#ttl()}) so that a release hands it the
     * lease. A grant removes the registration. A key already handed to the registration is returned as granted, so an
     * attempt made while the store's message is on its way finds the lease all the same.
     */
    AcquireResult acquireOrRegister(AcquireRequest request, Registration registration);

    /**
     * Calls {@code handedOver} when a release hands the lease to the registration, with the grant, while the returned
     * subscription is open. Whether calls are being delivered right now is {@link LeaseStore.Subscription#delivers()}.
     *
     * @param ownerToken the owner token of the registered request, which the store uses to check that a message is
     *     meant for it
     */
    LeaseStore.Subscription onHandOver(
            Registration registration, String ownerToken, Consumer<AcquireResult.Granted> handedOver);

    /**
     * Ends the registration; the waiter stopped waiting.
     *
     * @return whether the key was handed to the registration meanwhile (its owner token now holds the lease): the
     *     caller must then release it
     */
    boolean withdraw(Registration registration, String ownerToken);
}
