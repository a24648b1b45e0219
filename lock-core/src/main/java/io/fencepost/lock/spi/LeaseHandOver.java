package io.fencepost.lock.spi;

import java.util.Optional;

/**
 * A store ability: hands a live lease from its holder straight to a waiter of the same client in one durable step,
 * instead of a release and an acquire. The engine finds it once, when it is built; without it, a release frees the
 * key and the waiter acquires.
 */
public interface LeaseHandOver {

    /**
     * In one durable step, the lease of {@code request.fromOwnerToken()} on the key gets the new owner token and
     * holder, a new fencing token (ordered with every other grant of the key, like an acquire's), and a lease of the
     * new lease time from the store's now, as if released and acquired again with nobody in between. Whether others
     * wait for the key is kept, so that their wake-up on the next release is not lost.
     *
     * @return the new grant; empty when the old owner token no longer owns a live lease on the key (released,
     *     expired, taken over or force-released): then nothing changed, and the waiter acquires as usual
     */
    Optional<HandOver> handOver(HandOverRequest request);
}
