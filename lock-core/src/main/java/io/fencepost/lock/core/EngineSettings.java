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

    public EngineSettings {
        Objects.requireNonNull(holderName, "holderName");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(minBackoff, "minBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        Objects.requireNonNull(pushFallback, "pushFallback");
    }
}
