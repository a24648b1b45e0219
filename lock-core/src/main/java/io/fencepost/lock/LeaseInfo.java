package io.fencepost.lock;

import java.time.Instant;
import java.util.Objects;

/**
 * The store's view of a live lease. Deliberately carries no owner token: it is safe to log and to show.
 *
 * @param key the locked key
 * @param fencingToken the fencing token of the current grant
 * @param holder a human-readable name of the holder, such as {@code app@host}
 * @param acquiredAt when the current grant was made (store clock)
 * @param expiresAt when the lease ends unless renewed (store clock)
 */
public record LeaseInfo(String key, long fencingToken, String holder, Instant acquiredAt, Instant expiresAt) {

    public LeaseInfo {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(acquiredAt, "acquiredAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }
}
