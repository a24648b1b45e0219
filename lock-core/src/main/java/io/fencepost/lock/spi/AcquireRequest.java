package io.fencepost.lock.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * One attempt to take a key, as the engine asks a {@link LeaseStore}.
 *
 * @param key the key
 * @param ownerToken the secret that the grant's later release and renewal must present
 * @param holder human-readable holder name, shown by {@link LeaseStore#inspect}; cut to
 *     {@value StoreLimits#MAX_HOLDER_LENGTH} characters
 * @param leaseTime how long the grant lasts from the store's now
 * @param waiting whether the caller will wait if the key is busy: a store with push wake-ups may then note on the
 *     lease that someone waits, so that only releases somebody waits for pay for a notification
 */
public record AcquireRequest(String key, String ownerToken, String holder, Duration leaseTime, boolean waiting) {

    public AcquireRequest {
        StoreLimits.requireValidKey(key);
        Objects.requireNonNull(ownerToken, "ownerToken");
        holder = StoreLimits.fitHolder(holder);
        requirePositive(leaseTime, "lease time", key);
    }

    /** This request for another owner token. */
    public AcquireRequest withOwnerToken(String ownerToken) {
        return new AcquireRequest(key, ownerToken, holder, leaseTime, waiting);
    }

    static void requirePositive(Duration duration, String what, String key) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + duration + " (key '" + key + "')");
        }
    }

    @Override
    public String toString() {
        // The owner token is a secret: never in logs or exception messages.
        return "AcquireRequest[key=" + key + ", holder=" + holder + ", leaseTime=" + leaseTime + ", waiting=" + waiting
                + "]";
    }
}
