package io.fencepost.lock.core;

import io.fencepost.lock.spi.LockListener;
import io.fencepost.lock.spi.StoreLimits;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * The engine settings every lock manager builder offers, whatever its store: one definition of each, so that every
 * setting is reachable from every builder.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class EngineBuilder<B extends EngineBuilder<B>> {

    private String holderName = defaultHolderName();

    private LockListener listener = LockListener.NONE;

    private Duration minBackoff = Duration.ofMillis(5);

    private Duration maxBackoff = Duration.ofMillis(100);

    private Duration pushFallback = Duration.ofSeconds(1);

    protected EngineBuilder() {}

    /** This builder, as its own type. */
    protected abstract B self();

    /**
     * The human-readable holder name shown by {@code inspect}; defaults to {@code user@host:pid}, which tells apart two
     * processes on one host (see {@link #holderNameOf}). Cut to {@value StoreLimits#MAX_HOLDER_LENGTH} characters.
     */
    public B holderName(String holderName) {
        this.holderName = StoreLimits.fitHolder(holderName);
        return self();
    }

    /** Observes acquisitions, releases, renewals and losses, for metrics and logs. */
    public B listener(LockListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        return self();
    }

    /** Bounds of the randomized exponential backoff between attempts on a busy key; default 5 ms to 100 ms. */
    public B retryBackoff(Duration min, Duration max) {
        EngineSettings.checkBackoff(min, max);
        this.minBackoff = min;
        this.maxBackoff = max;
        return self();
    }

    /**
     * While the store delivers wake-ups, how often a waiter re-checks anyway, in case a wake-up was lost; default 1
     * second. Waiters also re-check at the holder's known expiry.
     */
    public B pushFallback(Duration pushFallback) {
        EngineSettings.checkPushFallback(pushFallback);
        this.pushFallback = pushFallback;
        return self();
    }

    /** The settings given so far, defaults for the rest. */
    protected EngineSettings engineSettings() {
        return new EngineSettings(holderName, listener, minBackoff, maxBackoff, pushFallback);
    }

    static String defaultHolderName() {
        return holderNameOf(System.getProperty("user.name", "app"));
    }

    /**
     * {@code name@host:pid}: a holder name that tells this process apart from every other one, also on the same host,
     * for an application or user {@code name}.
     */
    public static String holderNameOf(String name) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "unknown-host";
        }
        return StoreLimits.fitHolder(
                name + "@" + host + ":" + ProcessHandle.current().pid());
    }
}
