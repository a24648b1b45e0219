package io.fencepost.lock.core;

import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.RenewRequest;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The renewal scheduler of one manager, with two threads. The renewal thread renews, in one store call per
 * tick, every held lease that is due: a tick wakes at the earliest renewal time (a third of a lease time after
 * the last confirmation) and takes along every lease due within the next sixth of its lease time, so that
 * leases taken close together share a statement. The watchdog thread does no I/O: it declares
 * a lease lost the moment its local safe deadline passes unconfirmed, even while the renewal thread is stuck
 * in a store call that cannot reach the database.
 */
final class Renewer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Renewer.class.getName());

    private static final AtomicInteger MANAGERS = new AtomicInteger();

    /** After a store failure, try again this soon (bounded by the lease's own deadline). */
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    /** Idle re-check interval when nothing is held. */
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LeaseStore store;

    private final DefaultLockManager manager;

    private final Set<Grant> grants = ConcurrentHashMap.newKeySet();

    private final Sleeper renewalSleeper = new Sleeper();

    private final Sleeper watchdogSleeper = new Sleeper();

    private final Thread renewalThread;

    private final Thread watchdogThread;

    private volatile boolean running = true;

    Renewer(LeaseStore store, DefaultLockManager manager) {
        this.store = store;
        this.manager = manager;
        int id = MANAGERS.incrementAndGet();
        this.renewalThread = daemon("fencepost-renewal-" + id, () -> loop(renewalSleeper, this::renewDue));
        this.watchdogThread = daemon("fencepost-watchdog-" + id, () -> loop(watchdogSleeper, this::expireOverdue));
    }

    private static Thread daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    void register(Grant grant) {
        grants.add(grant);
        // Wake a thread only when the new lease needs it sooner than it planned to wake anyway; waking on
        // every grant would cut renewal into tiny batches while many leases are being taken.
        renewalSleeper.wakeIfLaterThan(grant.nextRenewalNanos());
        watchdogSleeper.wakeIfLaterThan(grant.safeDeadlineNanos());
    }

    void unregister(Grant grant) {
        grants.remove(grant);
    }

    private static long slack(Grant grant) {
        return grant.options.leaseTime().toNanos() / 6;
    }

    private void loop(Sleeper sleeper, LongSupplier work) {
        while (running) {
            try {
                sleeper.sleepUntil(work.getAsLong());
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            } catch (RuntimeException | Error e) {
                LOG.log(Level.ERROR, "fencepost renewal scheduler failed; retrying", e);
                try {
                    sleeper.sleepUntil(System.nanoTime() + RETRY_NANOS);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    /** Watchdog: declares lost what ran past its safe deadline; returns when to look again. */
    long expireOverdue() {
        long now = System.nanoTime();
        long nextWake = now + IDLE_NANOS;
        for (Grant grant : grants) {
            if (grant.state() != Grant.State.HELD) {
                grants.remove(grant);
            } else if (now - grant.safeDeadlineNanos() >= 0) {
                grants.remove(grant);
                manager.lost(grant, whyExpired(grant));
            } else {
                nextWake = Math.min(nextWake, grant.safeDeadlineNanos());
            }
        }
        return nextWake;
    }

    /** Renewal: one store call for everything due; returns when to look again. */
    long renewDue() {
        long now = System.nanoTime();
        long nextWake = now + IDLE_NANOS;
        List<Grant> due = new ArrayList<>();
        List<RenewRequest> requests = new ArrayList<>();
        for (Grant grant : grants) {
            if (grant.state() != Grant.State.HELD || !grant.options.renew() || grant.renewalsEnded) {
                continue; // still watched by the watchdog, so that running past the lease is reported
            }
            if (!grant.ownerThread.isAlive()) {
                // Renewal must reflect a live holder: nobody is left to tell, the lease runs out on its own.
                grants.remove(grant);
                continue;
            }
            // A tick wakes at the earliest renewal time and takes everything due within the next sixth of a
            // lease time along, so that each statement covers a window of grants, not a single one.
            if (now - (grant.nextRenewalNanos() - slack(grant)) >= 0) {
                Duration renewFor = grant.renewableFor(now);
                if (renewFor.toMillis() <= 0) {
                    grant.renewalsEnded = true;
                    continue;
                }
                due.add(grant);
                requests.add(new RenewRequest(grant.key, grant.ownerToken(), renewFor));
            } else {
                nextWake = Math.min(nextWake, grant.nextRenewalNanos());
            }
        }
        if (!requests.isEmpty()) {
            nextWake = Math.min(nextWake, renew(due, requests));
        }
        return nextWake;
    }

    private long renew(List<Grant> due, List<RenewRequest> requests) {
        long nextWake = Long.MAX_VALUE;
        long sent = System.nanoTime();
        try {
            Map<String, Instant> renewed = store.renew(requests);
            for (int i = 0; i < due.size(); i++) {
                Grant grant = due.get(i);
                RenewRequest request = requests.get(i);
                Instant expiresAt = renewed.get(grant.key);
                if (expiresAt != null) {
                    grant.confirmed(sent, request.leaseTime(), expiresAt);
                    grant.renewals++;
                    if (request.leaseTime().compareTo(grant.options.leaseTime()) < 0) {
                        grant.renewalsEnded = true; // this renewal reached the max hold time
                    }
                    manager.renewed(grant);
                    nextWake = Math.min(nextWake, grant.nextRenewalNanos());
                } else if (grant.state() == Grant.State.HELD) {
                    // Not renewed while we still hold it: the row is gone, taken over or expired. (A release that
                    // raced this renewal has already moved the state to RELEASED and is not a loss.)
                    grants.remove(grant);
                    manager.lost(grant, "the store no longer has it: it expired or was taken over");
                }
            }
        } catch (RuntimeException e) {
            long retry = System.nanoTime() + RETRY_NANOS;
            for (Grant grant : due) {
                grant.retryRenewalAt(Math.min(retry, grant.safeDeadlineNanos()));
                manager.renewalFailed(grant, e);
            }
            nextWake = retry;
        }
        return nextWake;
    }

    private static String whyExpired(Grant grant) {
        if (!grant.options.renew()) {
            return "its lease time of " + grant.options.leaseTime() + " ran out (renewal is off)";
        }
        if (grant.renewalsEnded) {
            return "its max hold time of " + grant.options.maxHoldTime() + " was reached";
        }
        return "the store did not confirm a renewal before the lease's safe deadline";
    }

    @Override
    public void close() {
        running = false;
        renewalThread.interrupt();
        watchdogThread.interrupt();
        try {
            renewalThread.join(TimeUnit.SECONDS.toMillis(5));
            watchdogThread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sleeps until a planned time, or earlier when something new needs attention sooner. */
    private static final class Sleeper {

        private final ReentrantLock lock = new ReentrantLock();

        private final Condition changed = lock.newCondition();

        private boolean sleeping;

        private long wakeAt;

        /** An earlier wake-up asked for while the thread was working; applied when it next sleeps. */
        private boolean hasPending;

        private long pending;

        void sleepUntil(long nanos) throws InterruptedException {
            lock.lock();
            try {
                wakeAt = nanos;
                sleeping = true;
                while (true) {
                    if (hasPending) {
                        if (pending - wakeAt < 0) {
                            wakeAt = pending;
                        }
                        hasPending = false;
                    }
                    long wait = wakeAt - System.nanoTime();
                    if (wait <= 0) {
                        return;
                    }
                    changed.awaitNanos(wait);
                }
            } finally {
                sleeping = false;
                lock.unlock();
            }
        }

        /** Makes sure the thread looks again no later than {@code nanos}. */
        void wakeIfLaterThan(long nanos) {
            lock.lock();
            try {
                if (sleeping && nanos - wakeAt >= 0) {
                    return; // it wakes in time anyway, and then sees the new lease
                }
                if (!hasPending || nanos - pending < 0) {
                    pending = nanos;
                    hasPending = true;
                }
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }
}
