package io.fencepost.lock.core;

import io.fencepost.lock.internal.OutageLog;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.RenewRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Renews the held leases of one manager, in one store call per tick for everything due: a tick wakes at the earliest
 * renewal time (a third of a lease time after the last confirmation) and takes along every lease due within the next
 * sixth of its lease time, so that leases taken close together share a statement.
 */
final class Renewer extends LeaseWorker {

    /** After a store failure, try again this soon (bounded by the lease's own deadline). */
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final LeaseStore store;

    /** One line when renewal stops reaching the store, one when it is back; every lease it loses meanwhile has its own. */
    private final OutageLog outage = new OutageLog(
            System.getLogger(Renewer.class.getName()),
            "lease renewal cannot reach the lock store ({0}); held leases are lost at their safe deadlines unless it"
                    + " comes back first",
            "lease renewal reaches the lock store again after {0}");

    Renewer(LeaseStore store, LeaseEvents events) {
        super("fencepost-renewal", HeldLease::nextRenewalNanos, events);
        this.store = store;
    }

    /** One store call for everything due; returns when to look again. */
    @Override
    long work() {
        long now = System.nanoTime();
        long nextWake = now + IDLE_NANOS;
        List<HeldLease> due = new ArrayList<>();
        List<RenewRequest> requests = new ArrayList<>();
        for (HeldLease lease : leases) {
            if (lease.state() != HeldLease.State.HELD || lease.renewalsEnded()) {
                leases.remove(lease); // the watchdog still watches it, so that running past the lease is reported
                continue;
            }
            if (!lease.ownerThread.isAlive()) {
                // Renewal must reflect a live holder: nobody is left to tell, the lease runs out on its own.
                leases.remove(lease);
                continue;
            }
            long slack = lease.leaseTime().toNanos() / 6;
            if (now - (lease.nextRenewalNanos() - slack) >= 0) {
                Duration renewFor = lease.renewableFor(now);
                if (renewFor.toMillis() <= 0) {
                    lease.endRenewals();
                    continue;
                }
                if (lease.tryStartMovingEnd()) { // else the holder is extending it just now
                    due.add(lease);
                    requests.add(request(lease, renewFor));
                }
            } else {
                nextWake = Math.min(nextWake, lease.nextRenewalNanos());
            }
        }
        if (!requests.isEmpty()) {
            nextWake = Math.min(nextWake, renew(due, requests));
        }
        return nextWake;
    }

    private long renew(List<HeldLease> due, List<RenewRequest> requests) {
        long nextWake = Long.MAX_VALUE;
        long sent = System.nanoTime();
        try {
            Map<RenewRequest, Instant> renewed = store.renew(requests);
            outage.succeeded();
            for (int i = 0; i < due.size(); i++) {
                HeldLease lease = due.get(i);
                RenewRequest request = requests.get(i);
                Instant expiresAt = renewed.get(request);
                if (expiresAt != null) {
                    lease.renewed(sent, request.leaseTime(), expiresAt);
                    events.renewed(lease);
                    nextWake = Math.min(nextWake, lease.nextRenewalNanos());
                } else if (lease.state() == HeldLease.State.HELD) {
                    // Not renewed while we still hold it: the row is gone, taken over or expired. (A release that
                    // raced this renewal has already moved the state to RELEASED and is not a loss.)
                    leases.remove(lease);
                    events.lost(lease, "the store no longer has it: it expired or was taken over");
                }
            }
        } catch (RuntimeException e) {
            outage.failed(e);
            long retry = System.nanoTime() + RETRY_NANOS;
            for (HeldLease lease : due) {
                lease.retryRenewalAt(Math.min(retry, lease.safeDeadlineNanos()));
                events.renewalFailed(lease, e);
            }
            nextWake = retry;
        } finally {
            due.forEach(HeldLease::endMovingEnd);
        }
        return nextWake;
    }

    /**
     * Moves the end of {@code lease} to {@code leaseTime} from the store's now, at once, on the calling thread, and
     * keeps the key locked until {@code minHoldTime} (zero for no more than before) from that now.
     *
     * @return false when the store no longer has the lease (it is then reported lost)
     */
    boolean extend(HeldLease lease, Duration leaseTime, Duration minHoldTime) {
        lease.startMovingEnd();
        try {
            if (lease.state() != HeldLease.State.HELD) {
                return false;
            }
            long sent = System.nanoTime();
            RenewRequest request = request(lease, leaseTime);
            Instant expiresAt = store.renew(List.of(request)).get(request);
            if (expiresAt == null) {
                events.lost(
                        lease, "the store no longer had it when it was to be extended: it expired or was taken over");
                return false;
            }
            lease.extended(sent, System.nanoTime(), leaseTime, minHoldTime, expiresAt);
        } finally {
            lease.endMovingEnd();
        }
        thread.wakeIfLaterThan(lease.nextRenewalNanos());
        return true;
    }

    /** Renews for {@code leaseTime}, never below the lease's minimum hold (that of its options or of an extension). */
    private static RenewRequest request(HeldLease lease, Duration leaseTime) {
        return new RenewRequest(lease.key, lease.ownerToken(), leaseTime, lease.minHoldTime(), lease.mode());
    }
}
