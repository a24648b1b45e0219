package io.fencepost.lock.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * One lease to extend in a {@link LeaseStore#renew} batch.
 *
 * @param key the key
 * @param ownerToken the owner token of the grant
 * @param leaseTime the new lease runs from now (store clock) for this long
 */
public record RenewRequest(String key, String ownerToken, Duration leaseTime) {

    public RenewRequest {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(ownerToken, "ownerToken");
        AcquireRequest.requirePositive(leaseTime, "lease time", key);
    }

    @Override
    public String toString() {
        // The owner token is a secret: never in logs or exception messages.
        return "RenewRequest[key=" + key + ", leaseTime=" + leaseTime + "]";
    }
}
