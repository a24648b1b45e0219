package io.fencepost.lock.spi;

import io.fencepost.lock.LeaseMode;
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
 *     lease that someone waits, so that only releases somebody waits for pay for a notification; and a waiting
 *     exclusive request keeps new shared leases of the key from being granted before it
 * @param mode exclusive, shared or one of {@code permits}
 * @param permits how many leases of the key may be held at once: 1 for exclusive, at least 2 for {@link
 *     LeaseMode#PERMITS}, 0 (no count) for shared
 */
public record AcquireRequest(
        String key,
        String ownerToken,
        String holder,
        Duration leaseTime,
        boolean waiting,
        LeaseMode mode,
        int permits) {

    public AcquireRequest {
        StoreLimits.requireValidKey(key);
        Objects.requireNonNull(ownerToken, "ownerToken");
        holder = StoreLimits.fitHolder(holder);
        requirePositive(leaseTime, "lease time", key);
        Objects.requireNonNull(mode, "mode");
        boolean counted = switch (mode) {
            case EXCLUSIVE -> permits == 1;
            case SHARED -> permits == 0;
            case PERMITS -> permits >= 2;
        };
        if (!counted) {
            throw new IllegalArgumentException("a " + mode + " lease cannot have " + permits + " permits (key '" + key
                    + "'): exclusive has 1, shared 0 (no count), permits at least 2");
        }
    }

    /** An exclusive request. */
    public AcquireRequest(String key, String ownerToken, String holder, Duration leaseTime, boolean waiting) {
        this(key, ownerToken, holder, leaseTime, waiting, LeaseMode.EXCLUSIVE, 1);
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
                + ", mode=" + mode + ", permits=" + permits + "]";
    }
}
