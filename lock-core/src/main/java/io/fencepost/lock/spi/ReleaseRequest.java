package io.fencepost.lock.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * Ends a grant, as the engine asks a {@link LeaseStore}.
 *
 * @param key the key
 * @param ownerToken the grant's owner token: only a lease that it still owns is touched
 * @param minHoldTime zero to free the key now; positive to keep it locked, ownerless, until acquisition plus this
 *     time (or free it now, if that has passed), as ShedLock's lockAtLeastFor does
 */
public record ReleaseRequest(String key, String ownerToken, Duration minHoldTime) {

    public ReleaseRequest {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(ownerToken, "ownerToken");
        if (minHoldTime == null || minHoldTime.isNegative()) {
            throw new IllegalArgumentException(
                    "min hold time must be zero or positive, was " + minHoldTime + " (key '" + key + "')");
        }
    }

    /** Frees {@code key} now, if {@code ownerToken} still owns it. */
    public static ReleaseRequest now(String key, String ownerToken) {
        return new ReleaseRequest(key, ownerToken, Duration.ZERO);
    }

    /** Whether the key stays locked after the release, until its minimum hold has passed. */
    public boolean keepsMinimumHold() {
        return !minHoldTime.isZero();
    }

    @Override
    public String toString() {
        return "ReleaseRequest[key=" + key + ", minHoldTime=" + minHoldTime + "]";
    }
}
