package io.fencepost.lock;

import java.time.Duration;
import java.util.Objects;

/**
 * How one lock call behaves: lease time, wait time, renewal and hold bounds. Immutable; validated when built,
 * so that bad values fail before anything touches the store.
 */
public final class LockOptions {

    /** Lease time when none is given. */
    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

    /** Wait time when none is given: a single attempt. */
    public static final Duration DEFAULT_WAIT_TIME = Duration.ZERO;

    /** Minimum hold time when none is given: release frees the key at once. */
    public static final Duration DEFAULT_MIN_HOLD_TIME = Duration.ZERO;

    /**
     * Bound on renewal when none is given. A holder that is still running after an hour is more likely stuck
     * than busy; longer jobs set {@code maxHoldTime} explicitly.
     */
    public static final Duration DEFAULT_MAX_HOLD_TIME = Duration.ofHours(1);

    /**
     * The longest duration any option accepts: far beyond any real lease, and short enough that the engine's
     * nanosecond arithmetic cannot overflow (that limit is about 292 years).
     */
    public static final Duration MAX_DURATION = Duration.ofDays(365L * 200);

    /** Metrics name when none is given. */
    public static final String DEFAULT_NAME = "default";

    private static final LockOptions DEFAULTS = builder().build();

    private final Duration leaseTime;

    private final Duration waitTime;

    private final boolean renew;

    private final Duration minHoldTime;

    private final Duration maxHoldTime;

    private final String name;

    private final boolean fair;

    private final boolean skipsWhenBusy;

    private final boolean reentrant;

    private final boolean shared;

    private final int permits;

    private LockOptions(Builder builder) {
        this.leaseTime = builder.leaseTime;
        this.waitTime = builder.waitTime;
        this.renew = builder.renew;
        this.minHoldTime = builder.minHoldTime;
        this.maxHoldTime = builder.maxHoldTime;
        this.name = builder.name;
        this.fair = builder.fair;
        this.skipsWhenBusy = builder.skipsWhenBusy;
        this.reentrant = builder.reentrant;
        this.shared = builder.shared;
        this.permits = builder.permits;
    }

    /** The defaults: 30s lease, one attempt, renewed up to an hour. */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /** Defaults with the given lease time. */
    public static LockOptions of(Duration leaseTime) {
        return builder().leaseTime(leaseTime).build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        return new Builder()
                .leaseTime(leaseTime)
                .waitTime(waitTime)
                .renew(renew)
                .minHoldTime(minHoldTime)
                .maxHoldTime(maxHoldTime)
                .name(name)
                .fair(fair)
                .skipsWhenBusy(skipsWhenBusy)
                .reentrant(reentrant)
                .shared(shared)
                .permits(permits);
    }

    /** How long a grant lasts unless renewed; the store's clock decides when it ends. */
    public Duration leaseTime() {
        return leaseTime;
    }

    /** How long to wait for a busy key; zero means one attempt. */
    public Duration waitTime() {
        return waitTime;
    }

    /** Whether the lease is renewed in the background while held. */
    public boolean renew() {
        return renew;
    }

    /** How long the key stays locked after acquisition even when released earlier (ShedLock's lockAtLeastFor). */
    public Duration minHoldTime() {
        return minHoldTime;
    }

    /** Renewal never extends a lease past its acquisition plus this bound. */
    public Duration maxHoldTime() {
        return maxHoldTime;
    }

    /** A low-cardinality name for metrics and logs, never the key itself. */
    public String name() {
        return name;
    }

    /**
     * Whether waiters are served in arrival order across all clients (registered with the store, which hands each
     * release to the oldest; the store must support waiter registrations), instead of whoever retries first. A fair
     * caller that does not wait costs one more statement when the key is busy (it withdraws its registration).
     * Fairness holds among fair callers: a non-fair acquisition of the same key may still barge in.
     */
    public boolean fair() {
        return fair;
    }

    /**
     * Whether the caller skips its work when the key stays busy, as {@code @DistributedLock(onLocked = SKIP)} does:
     * listeners then report the busy key as skipped rather than as not acquired (the {@code result} tag of the
     * acquire metric). It changes nothing else: {@code tryAcquire} still returns empty and {@code acquire} still
     * throws.
     */
    public boolean skipsWhenBusy() {
        return skipsWhenBusy;
    }

    /**
     * Whether the thread that holds the key through this manager gets the same lease again when it asks (a reentrant
     * hold, released with the outermost one); with {@code false} it is busy for itself like for any other caller.
     */
    public boolean reentrant() {
        return reentrant;
    }

    /**
     * Whether the lease is shared (a read lease): any number of shared leases of a key may be held at once, never
     * together with an exclusive one. Once an exclusive request waits for the key, new shared requests wait behind
     * it, so writers are not starved by a stream of readers.
     */
    public boolean shared() {
        return shared;
    }

    /**
     * How many leases of the key may be held at once (a counted semaphore); 1, the default, is an exclusive lock.
     * Every caller of a key must ask for the same number: a caller that disagrees with the live leases gets an
     * {@link IllegalStateException} naming both numbers.
     */
    public int permits() {
        return permits;
    }

    /** The kind of lease these options ask for. */
    public LeaseMode mode() {
        return shared ? LeaseMode.SHARED : permits > 1 ? LeaseMode.PERMITS : LeaseMode.EXCLUSIVE;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockOptions other
                && renew == other.renew
                && leaseTime.equals(other.leaseTime)
                && waitTime.equals(other.waitTime)
                && minHoldTime.equals(other.minHoldTime)
                && maxHoldTime.equals(other.maxHoldTime)
                && name.equals(other.name)
                && fair == other.fair
                && skipsWhenBusy == other.skipsWhenBusy
                && reentrant == other.reentrant
                && shared == other.shared
                && permits == other.permits;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                leaseTime,
                waitTime,
                renew,
                minHoldTime,
                maxHoldTime,
                name,
                fair,
                skipsWhenBusy,
                reentrant,
                shared,
                permits);
    }

    @Override
    public String toString() {
        return "LockOptions[leaseTime=" + leaseTime + ", waitTime=" + waitTime + ", renew=" + renew + ", minHoldTime="
                + minHoldTime + ", maxHoldTime=" + maxHoldTime + ", name=" + name + ", fair=" + fair
                + ", skipsWhenBusy="
                + skipsWhenBusy + "]";
    }

    /** Builds {@link LockOptions}; {@link #build()} validates. */
    public static final class Builder {

        private Duration leaseTime = DEFAULT_LEASE_TIME;

        private Duration waitTime = DEFAULT_WAIT_TIME;

        private boolean renew = true;

        private Duration minHoldTime = DEFAULT_MIN_HOLD_TIME;

        private Duration maxHoldTime = DEFAULT_MAX_HOLD_TIME;

        private String name = DEFAULT_NAME;

        private boolean fair;

        private boolean skipsWhenBusy;

        private boolean reentrant = true;

        private boolean shared;

        private int permits = 1;

        private Builder() {}

        public Builder leaseTime(Duration leaseTime) {
            this.leaseTime = leaseTime;
            return this;
        }

        public Builder waitTime(Duration waitTime) {
            this.waitTime = waitTime;
            return this;
        }

        public Builder renew(boolean renew) {
            this.renew = renew;
            return this;
        }

        public Builder minHoldTime(Duration minHoldTime) {
            this.minHoldTime = minHoldTime;
            return this;
        }

        public Builder maxHoldTime(Duration maxHoldTime) {
            this.maxHoldTime = maxHoldTime;
            return this;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder fair(boolean fair) {
            this.fair = fair;
            return this;
        }

        public Builder skipsWhenBusy(boolean skipsWhenBusy) {
            this.skipsWhenBusy = skipsWhenBusy;
            return this;
        }

        public Builder reentrant(boolean reentrant) {
            this.reentrant = reentrant;
            return this;
        }

        public Builder shared(boolean shared) {
            this.shared = shared;
            return this;
        }

        public Builder permits(int permits) {
            this.permits = permits;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException naming the bad value and what is allowed
         */
        public LockOptions build() {
            require(
                    leaseTime != null && !leaseTime.isNegative() && !leaseTime.isZero(),
                    "lease time must be positive, was " + leaseTime);
            requireAtMostMax("lease time", leaseTime);
            requireAtMostMax("wait time", waitTime);
            requireAtMostMax("min hold time", minHoldTime);
            requireAtMostMax("max hold time", maxHoldTime);
            require(leaseTime.toMillis() > 0, "lease time must be at least 1ms, was " + leaseTime);
            require(
                    waitTime != null && !waitTime.isNegative(),
                    "wait time must be zero (one attempt) or positive, was " + waitTime);
            require(
                    minHoldTime != null && !minHoldTime.isNegative(),
                    "min hold time must be zero or positive, was " + minHoldTime);
            require(
                    maxHoldTime != null && !maxHoldTime.isNegative() && !maxHoldTime.isZero(),
                    "max hold time must be positive, was " + maxHoldTime);
            Duration longestHold = renew ? max(leaseTime, maxHoldTime) : leaseTime;
            require(
                    minHoldTime.compareTo(longestHold) <= 0,
                    "min hold time " + minHoldTime + " exceeds the longest possible hold " + longestHold
                            + " (raise leaseTime" + (renew ? " or maxHoldTime" : "") + ", or lower minHoldTime)");
            require(name != null && !name.isBlank(), "name must not be blank, was '" + name + "'");
            require(permits >= 1, "permits must be at least 1 (1 is an exclusive lock), was " + permits);
            require(
                    !(shared && permits > 1),
                    "a lease cannot be both shared and one of " + permits + " permits: shared leases have no count"
                            + " (drop permits), permits are counted exclusive leases (drop shared)");
            require(
                    !(fair && (shared || permits > 1)),
                    "fair mode serves exclusive leases only; drop fair for "
                            + (shared ? "a shared lease" : permits + " permits"));
            return new LockOptions(this);
        }

        private static void requireAtMostMax(String what, Duration value) {
            require(
                    value == null || value.compareTo(MAX_DURATION) <= 0,
                    what + " must be at most " + MAX_DURATION.toDays() + " days (200 years), was " + value);
        }

        private static Duration max(Duration a, Duration b) {
            return a.compareTo(b) >= 0 ? a : b;
        }

        private static void require(boolean condition, String message) {
            if (!condition) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
