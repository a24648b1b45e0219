package io.fencepost.lock.spi;

import io.fencepost.lock.LeaseMode;
import java.time.Duration;
import java.util.Objects;

/**
 * Ends a grant, as the engine asks a {@link LeaseStore}.
 *
 * @param key the key
 * @param ownerToken the grant's owner token: only a lease that it still owns is touched
 * @param minHoldTime zero to free the key now; positive to keep it locked, ownerless, until acquisition plus this
 *     time (or free it now, if that has passed), as ShedLock's lockAtLeastFor does; the options' minimum hold, or
 *     later when an extension asked for one of its own
 * @param mode the kind of lease, which tells the store where to find it
 */
public record ReleaseRequest(String key, String ownerToken, Duration minHoldTime, LeaseMode mode) {

    public ReleaseRequest {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(ownerToken, "ownerToken");
        Objects.requireNonNull(mode, "mode");
        if (minHoldTime == null || minHoldTime.isNegative()) {
            throw new IllegalArgumentException(
                    "min hold time must be zero or positive, was " + minHoldTime + " (key '" + key + "')");
        }
    }

    /** Ends an exclusive lease. */
    public ReleaseRequest(String key, String ownerToken, Duration minHoldTime) {
        this(key, ownerToken, minHoldTime, LeaseMode.EXCLUSIVE);
    }

    /** Frees {@code key} now, if {@code ownerToken} still owns its exclusive lease. */
    public static ReleaseRequest now(String key, String ownerToken) {
        return new ReleaseRequest(key, ownerToken, Duration.ZERO);
    }

    /** Whether the key stays locked after the release, until its minimum hold has passed. */
    public boolean keepsMinimumHold() {
        return !minHoldTime.isZero();
    }

    @Override
    public String toString() {
        return "ReleaseRequest[key=" + key + ", minHoldTime=" + minHoldTime + ", mode=" + mode + "]";
    }
}
