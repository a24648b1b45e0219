package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.LockOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One hold on a {@link HeldLease}, as the caller sees it: each reentrant acquisition gets its own hold on the same
 * lease, and the last hold released ends the lease. Listeners get a view that cannot release anything.
 */
final class LeaseHold implements Lease {

    private final HeldLease lease;

    /** Ends the hold; null for a listener's view. */
    private final Releases releases;

    /** Moves the end of the lease; null for a listener's view. */
    private final Renewer renewer;

    private final AtomicBoolean released = new AtomicBoolean();

    LeaseHold(HeldLease lease, Releases releases, Renewer renewer) {
        this.lease = lease;
        this.releases = Objects.requireNonNull(releases, "releases");
        this.renewer = Objects.requireNonNull(renewer, "renewer");
    }

    private LeaseHold(HeldLease lease) {
        this.lease = lease;
        this.releases = null;
        this.renewer = null;
    }

    /** A view of {@code lease} for listeners: it reads the lease, and its release does nothing. */
    static LeaseHold view(HeldLease lease) {
        return new LeaseHold(lease);
    }

    @Override
    public String key() {
        return lease.key;
    }

    @Override
    public long fencingToken() {
        return lease.fencingToken;
    }

    @Override
    public Instant expiresAt() {
        return lease.expiresAt();
    }

    @Override
    public boolean isHeld() {
        return !released.get() && lease.isHeld();
    }

    @Override
    public void checkHeld() {
        if (released.get()) {
            throw new LeaseLostException(lease.key, lease.fencingToken, "it was released");
        }
        lease.checkHeld();
    }

    @Override
    public void onLost(Consumer<? super LeaseLostException> listener) {
        lease.onLost(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public boolean extend(Duration leaseTime) {
        return extend(leaseTime, Duration.ZERO);
    }

    @Override
    public boolean extend(Duration leaseTime, Duration minHoldTime) {
        if (leaseTime == null || leaseTime.isNegative() || leaseTime.isZero()) {
            throw new IllegalArgumentException(
                    "a lease must be extended by a positive duration, was " + leaseTime + " (key '" + lease.key + "')");
        }
        if (leaseTime.compareTo(LockOptions.MAX_DURATION) > 0 || leaseTime.toMillis() < 1) {
            throw new IllegalArgumentException("a lease must be extended by 1 ms to "
                    + LockOptions.MAX_DURATION.toDays() + " days, was " + leaseTime + " (key '" + lease.key + "')");
        }
        if (minHoldTime == null || minHoldTime.isNegative()) {
            throw new IllegalArgumentException("the min hold time of an extension must be zero or positive, was "
                    + minHoldTime + " (key '" + lease.key + "')");
        }
        if (minHoldTime.compareTo(leaseTime) > 0) {
            throw new IllegalArgumentException("the min hold time of an extension, " + minHoldTime
                    + ", exceeds its lease time " + leaseTime + " (key '" + lease.key
                    + "'): raise the lease time or lower the min hold time");
        }
        if (renewer == null || released.get() || !lease.isHeld()) {
            return false;
        }
        return renewer.extend(lease, leaseTime, minHoldTime);
    }

    @Override
    public boolean release() {
        if (releases == null || !released.compareAndSet(false, true)) {
            return false;
        }
        return releases.releaseHold(lease, true);
    }

    @Override
    public void close() {
        if (releases != null && released.compareAndSet(false, true)) {
            releases.releaseHold(lease, false);
        }
    }

    /**
     * Ends this hold as one of a set's, which {@link Releases#releaseAll} ends together: the lease, or null when this
     * hold was released already.
     */
    HeldLease claimForSetRelease() {
        return releases != null && released.compareAndSet(false, true) ? lease : null;
    }

    /** The grant behind this hold, for {@link LeaseGrant#of}. */
    LeaseGrant grant() {
        if (released.get() || lease.state() == HeldLease.State.RELEASED) {
            throw new IllegalStateException("the lease on '" + lease.key + "' (fencing token " + lease.fencingToken
                    + ") was released: keep it until the work it protects has committed");
        }
        if (lease.state() == HeldLease.State.LOST) {
            lease.checkHeld();
        }
        return new LeaseGrant(lease.key, lease.ownerToken(), lease.fencingToken, lease.mode(), lease.expiresAt());
    }

    @Override
    public String toString() {
        return lease.toString();
    }
}
