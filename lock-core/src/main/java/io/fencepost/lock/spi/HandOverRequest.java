package io.fencepost.lock.spi;

import io.fencepost.lock.LeaseMode;
import java.util.Objects;

/**
 * Hands a live lease from its owner straight to a new grant of the same client, as the engine asks a
 * {@link LeaseHandOver} store.
 *
 * @param fromOwnerToken the owner token of the lease handed over
 * @param to the new grant: key, owner token, holder and lease time; always exclusive
 */
public record HandOverRequest(String fromOwnerToken, AcquireRequest to) {

    public HandOverRequest {
        Objects.requireNonNull(fromOwnerToken, "fromOwnerToken");
        Objects.requireNonNull(to, "to");
        if (to.mode() != LeaseMode.EXCLUSIVE) {
            throw new IllegalArgumentException("only exclusive leases are handed over, not a " + to.mode()
                    + " lease (key '" + to.key() + "'): shared leases and permits are acquired from the store");
        }
    }

    /** The key handed over. */
    public String key() {
        return to.key();
    }

    @Override
    public String toString() {
        return "HandOverRequest[to=" + to + "]";
    }
}
