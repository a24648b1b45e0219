package io.fencepost.lock.core;

import io.fencepost.lock.LockOptions;
import io.fencepost.lock.spi.AcquireRequest;
import java.time.Duration;

/**
 * One call to acquire a key, from its start to its outcome.
 *
 * @param key the key, validated
 * @param options the call's options
 * @param startNanos when the call started ({@link System#nanoTime()})
 */
record AcquireCall(String key, LockOptions options, long startNanos) {

    /**
     * The store request of one attempt of this call, for a grant with {@code ownerToken}: the one place where the
     * call's options become what the store sees.
     */
    AcquireRequest request(String ownerToken, String holderName) {
        return new AcquireRequest(
                key,
                ownerToken,
                holderName,
                options.leaseTime(),
                waits(),
                options.mode(),
                options.shared() ? 0 : options.permits());
    }

    /** When the wait ends ({@link System#nanoTime()}). */
    long deadlineNanos() {
        return startNanos + options.waitTime().toNanos();
    }

    /** Whether the caller waits for a busy key, rather than making one attempt. */
    boolean waits() {
        return options.waitTime().toNanos() > 0;
    }

    /** How long the call has taken so far. */
    Duration waited() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    /** Nanoseconds left of the wait; zero or less once it has ended. */
    long remainingNanos() {
        return deadlineNanos() - System.nanoTime();
    }
}
