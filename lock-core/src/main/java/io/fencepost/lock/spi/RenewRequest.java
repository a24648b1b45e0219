package io.fencepost.lock.spi;

import io.fencepost.lock.LeaseMode;
import java.time.Duration;
import java.util.Objects;

/**
 * One lease to extend in a {@link LeaseStore#renew} batch.
 *
 * @param key the key
 * @param ownerToken the owner token of the grant
 * @param leaseTime the new lease runs from now (store clock) for this long
 * @param minHoldTime but never ends before acquisition plus this (zero for no floor): the options' minimum hold, or
 *     later when an extension asked for one of its own
 * @param mode the kind of lease, which tells the store where to find it
 */
public record RenewRequest(String key, String ownerToken, Duration leaseTime, Duration minHoldTime, LeaseMode mode) {

    public RenewRequest {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(ownerToken, "ownerToken");
        AcquireRequest.requirePositive(leaseTime, "lease time", key);
        Objects.requireNonNull(minHoldTime, "minHoldTime");
        Objects.requireNonNull(mode, "mode");
    }

    /** Renews an exclusive lease, with no floor. */
    public RenewRequest(String key, String ownerToken, Duration leaseTime) {
        this(key, ownerToken, leaseTime, Duration.ZERO, LeaseMode.EXCLUSIVE);
    }

    @Override
    public String toString() {
        // The owner token is a secret: never in logs or exception messages.
        return "RenewRequest[key=" + key + ", leaseTime=" + leaseTime + ", minHoldTime=" + minHoldTime + ", mode="
                + mode + "]";
    }
}
