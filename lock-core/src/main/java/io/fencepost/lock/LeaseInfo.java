package io.fencepost.lock;

import java.time.Instant;
import java.util.Objects;

/**
 * The store's view of the live leases of a key. Deliberately carries no owner token: it is safe to log and to show.
 * Of several leases (shared leases, permits), it shows the latest grant, the end of the last lease to run out (until
 * then the key is not free for an exclusive request), and how many are live.
 *
 * @param key the locked key
 * @param fencingToken the fencing token of the latest grant
 * @param holder a human-readable name of the latest grant's holder, such as {@code app@host}
 * @param acquiredAt when the latest grant was made (store clock)
 * @param expiresAt when the last live lease ends unless renewed (store clock)
 * @param mode the kind of the live leases
 * @param permits how many leases of the key may be live at once: 1 when exclusive, 0 (no count) when shared
 * @param leases how many leases of the key are live
 */
public record LeaseInfo(
        String key,
        long fencingToken,
        String holder,
        Instant acquiredAt,
        Instant expiresAt,
        LeaseMode mode,
        int permits,
        int leases) {

    public LeaseInfo {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(acquiredAt, "acquiredAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(mode, "mode");
    }

    /** The view of one exclusive lease. */
    public LeaseInfo(String key, long fencingToken, String holder, Instant acquiredAt, Instant expiresAt) {
        this(key, fencingToken, holder, acquiredAt, expiresAt, LeaseMode.EXCLUSIVE, 1, 1);
    }
}
