package io.fencepost.lock.shedlock;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.internal.LogSafe;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Ends leases whose lock was unlocked before the {@code lockAtLeastFor} of an extension had passed. A lease's minimum
 * hold counts from its acquisition and the store keeps it at release; an extension's counts from the extension, so the
 * unlock moves the lease's end to then (plus {@link #SLACK}, so that the holder never sees its own lease run out) and a
 * timer releases it at that time. Should this process die first, the store ends the lease at most {@link #SLACK}
 * later.
 */
final class DelayedReleases implements AutoCloseable {

    /** How much longer than its at-least time the store may keep such a lease if the timer never fires. */
    static final Duration SLACK = Duration.ofSeconds(1);

    private static final System.Logger LOG = System.getLogger(DelayedReleases.class.getName());

    private ScheduledThreadPoolExecutor timer;

    private boolean closed;

    /** Keeps {@code lease} for {@code left} more, then releases it. */
    void releaseAfter(Lease lease, Duration left) {
        try {
            if (!lease.extend(left.plus(SLACK))) {
                return; // lost or expired already: nothing to keep
            }
        } catch (LockStoreException e) {
            LOG.log(
                    Level.WARNING,
                    "could not keep ShedLock lock ''{0}'' (fencing token {1}) for its lockAtLeastFor; it ends at {2}:"
                            + " {3}",
                    LogSafe.text(lease.key()),
                    Long.toString(lease.fencingToken()),
                    lease.expiresAt(),
                    LogSafe.text(e.toString()));
            return;
        }
        ScheduledThreadPoolExecutor scheduler = timer();
        if (scheduler == null) {
            return; // the provider is closed: the store ends the lease at its new end
        }
        scheduler.schedule(lease::close, left.toNanos(), TimeUnit.NANOSECONDS);
    }

    private synchronized ScheduledThreadPoolExecutor timer() {
        if (closed) {
            return null;
        }
        if (timer == null) {
            timer = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, "fencepost-shedlock-release");
                thread.setDaemon(true);
                return thread;
            });
            timer.setRemoveOnCancelPolicy(true);
        }
        return timer;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
