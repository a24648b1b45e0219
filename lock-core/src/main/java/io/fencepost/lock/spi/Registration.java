package io.fencepost.lock.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * One waiting caller's registration with a {@link WaiterRelay}.
 *
 * @param key the key waited for
 * @param id names the registration in the store and in the store's messages (not a secret: the owner token, which
 *     the grant will carry, is never part of it)
 * @param ttl how long the registration lives unless refreshed by another attempt
 * @param inTurn fair mode: the waiter is granted the key only when no live registration older than its own waits for
 *     it, even when the key is free; otherwise it takes a free key whoever else is registered
 */
public record Registration(String key, String id, Duration ttl, boolean inTurn) {

    public Registration {
        StoreLimits.requireValidKey(key);
        Objects.requireNonNull(id, "id");
        AcquireRequest.requirePositive(ttl, "registration lifetime", key);
    }
}
