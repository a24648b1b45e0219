package io.fencepost.lock.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/** The outcome of one {@link LeaseStore#acquire} attempt: a grant, or the key is busy. */
public sealed interface AcquireResult permits AcquireResult.Granted, AcquireResult.Busy {

    /**
     * The key is ours.
     *
     * @param fencingToken the grant's fencing token
     * @param acquiredAt grant time (store clock)
     * @param expiresAt end of the lease (store clock)
     */
    record Granted(long fencingToken, Instant acquiredAt, Instant expiresAt) implements AcquireResult {
        public Granted {
            Objects.requireNonNull(acquiredAt, "acquiredAt");
            Objects.requireNonNull(expiresAt, "expiresAt");
        }
    }

    /**
     * Someone else holds the key.
     *
     * @param remaining how long the current lease still runs by the store's clock, when the store could tell;
     *     a waiter never sleeps past it
     */
    record Busy(Optional<Duration> remaining) implements AcquireResult {
        private static final Busy UNKNOWN = new Busy(Optional.empty());

        public Busy {
            Objects.requireNonNull(remaining, "remaining");
        }

        /** Busy, with the holder's remaining lease time unknown. */
        public static Busy unknown() {
            return UNKNOWN;
        }

        /** Busy for at most {@code remaining}. */
        public static Busy forAtMost(Duration remaining) {
            return new Busy(Optional.of(remaining.isNegative() ? Duration.ZERO : remaining));
        }
    }
}
