package io.fencepost.lock.spi;

import java.util.Objects;

/**
 * The outcome of a successful {@link LeaseHandOver#handOver}: the new grant, and whether somebody else (a waiter the
 * store knows of, typically in another process) was waiting for the key when it changed hands.
 *
 * @param granted the new grant: a fresh fencing token and lease
 * @param othersWaiting whether a waiter elsewhere had asked to be woken when the key frees; the engine then gives
 *     that waiter a turn soon instead of handing the key on locally for ever
 */
public record HandOver(AcquireResult.Granted granted, boolean othersWaiting) {
    public HandOver {
        Objects.requireNonNull(granted, "granted");
    }
}
