package io.fencepost.lock.spi;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** The outcome of one {@link MultiKeyAcquire#acquireAll} attempt: every key granted, or none. */
public sealed interface MultiAcquireResult permits MultiAcquireResult.Granted, MultiAcquireResult.Busy {

    /**
     * Every key of the set is ours.
     *
     * @param grants one grant per request, in the order of the requests
     */
    record Granted(List<AcquireResult.Granted> grants) implements MultiAcquireResult {
        public Granted {
            grants = List.copyOf(grants);
        }
    }

    /**
     * Nothing was granted: a key of the set is held by someone else, or being granted right now.
     *
     * @param key a key of the set that was found busy, when the store could tell which
     * @param remaining how long that key's lease still runs by the store's clock, when the store could tell
     */
    record Busy(Optional<String> key, Optional<Duration> remaining) implements MultiAcquireResult {
        private static final Busy UNKNOWN = new Busy(Optional.empty(), Optional.empty());

        public Busy {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(remaining, "remaining");
        }

        /** Busy, without knowing which key or for how long (a race with another grant, for example). */
        public static Busy unknown() {
            return UNKNOWN;
        }

        /** {@code key} is held for at most {@code remaining}. */
        public static Busy held(String key, Duration remaining) {
            return new Busy(Optional.of(key), Optional.of(remaining.isNegative() ? Duration.ZERO : remaining));
        }
    }
}
