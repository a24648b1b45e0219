package io.fencepost.lock.core;

import io.fencepost.lock.spi.LockListener;
import java.time.Duration;
import java.util.Objects;

/**
 * How a lock manager's engine behaves, whatever its store: built by {@link EngineBuilder}.
 *
 * @param holderName the human-readable holder name written with every lease
 * @param listener observes acquisitions, releases, renewals and losses
 * @param minBackoff the shortest pause between attempts on a busy key while polling
 * @param maxBackoff the longest such pause
 * @param pushFallback while the store delivers wake-ups, how often a waiter re-checks anyway
 */
public record EngineSettings(
        String holderName, LockListener listener, Duration minBackoff, Duration maxBackoff, Duration pushFallback) {

    /** @throws IllegalArgumentException for a backoff or push fallback that {@link EngineBuilder} refuses */
    public EngineSettings {
        Objects.requireNonNull(holderName, "holderName");
        Objects.requireNonNull(listener, "listener");
        checkBackoff(minBackoff, maxBackoff);
        checkPushFallback(pushFallback);
    }

    /** The bounds of the backoff, checked here and by the builder's setter so that a mistake fails where it is made. */
    static void checkBackoff(Duration min, Duration max) {
        if (min == null || max == null || min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
            throw new IllegalArgumentException(
                    "retry backoff must satisfy 0 < min <= max, was min=" + min + ", max=" + max);
        }
    }

    static void checkPushFallback(Duration pushFallback) {
        if (pushFallback == null || pushFallback.isNegative() || pushFallback.isZero()) {
            throw new IllegalArgumentException("push fallback must be positive, was " + pushFallback);
        }
    }
}
