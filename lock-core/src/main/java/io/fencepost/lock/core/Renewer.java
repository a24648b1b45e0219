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

/**
 * The one renewal thread of a manager. Each tick it renews, in a single store call, every held lease that is
 * due (a third of its lease time after the last confirmation), and declares lost every lease the store did
 * not renew or could not confirm before its local safe deadline.
 */
final class Renewer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Renewer.class.getName());

    private static final AtomicInteger THREADS = new AtomicInteger();

    /** After a store failure, try again this soon (bounded by the lease's own schedule). */
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final LeaseStore store;

    private final DefaultLockManager manager;

    private final Set<Grant> grants = ConcurrentHashMap.newKeySet();

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition changed = lock.newCondition();

    private final Thread thread;

    private volatile boolean running = true;

    Renewer(LeaseStore store, DefaultLockManager manager) {
        this.store = store;
        this.manager = manager;
        this.thread = new Thread(this::run, "fencepost-renewal-" + THREADS.incrementAndGet());
        this.thread.setDaemon(true);
        this.thread.start();
    }

    void register(Grant grant) {
        grants.add(grant);
        signal();
    }

    void unregister(Grant grant) {
        grants.remove(grant);
    }

    int size() {
        return grants.size();
    }

    private void signal() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        while (running) {
            try {
                long wait = tick();
                lock.lock();
                try {
                    if (running && wait > 0) {
                        changed.awaitNanos(wait);
                    }
                } finally {
                    lock.unlock();
                }
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            } catch (RuntimeException | Error e) {
                LOG.log(Level.ERROR, "fencepost renewal tick failed; retrying", e);
                sleepQuietly(RETRY_NANOS);
            }
        }
    }

    /** Renews what is due; returns how long to sleep until something else is due. */
    long tick() {
        long now = System.nanoTime();
        long nextWake = now + TimeUnit.SECONDS.toNanos(1);
        List<Grant> due = new ArrayList<>();
        List<RenewRequest> requests = new ArrayList<>();
        for (Grant grant : grants) {
            if (grant.state() != Grant.State.HELD) {
                grants.remove(grant);
                continue;
            }
            if (now - grant.safeDeadlineNanos() >= 0) {
                grants.remove(grant);
                manager.lost(grant, "the store did not confirm a renewal before the lease's safe deadline");
                continue;
            }
            if (!grant.ownerThread.isAlive()) {
                // Renewal must reflect a live holder: the lease now runs out on its own.
                grants.remove(grant);
                continue;
            }
            Duration renewFor = grant.renewableFor(now);
            if (renewFor.toMillis() <= 0) {
                grants.remove(grant);
                continue;
            }
            if (now - grant.nextRenewalNanos() >= 0) {
                due.add(grant);
                requests.add(new RenewRequest(grant.key, grant.ownerToken(), renewFor));
            } else {
                nextWake = Math.min(nextWake, grant.nextRenewalNanos());
            }
            nextWake = Math.min(nextWake, grant.safeDeadlineNanos());
        }
        if (!requests.isEmpty()) {
            long sent = System.nanoTime();
            try {
                Map<String, Instant> renewed = store.renew(requests);
                for (int i = 0; i < due.size(); i++) {
                    Grant grant = due.get(i);
                    Instant expiresAt = renewed.get(grant.key);
                    if (expiresAt != null) {
                        grant.confirmed(sent, requests.get(i).leaseTime(), expiresAt);
                        grant.renewals++;
                        manager.renewed(grant);
                        nextWake = Math.min(nextWake, grant.nextRenewalNanos());
                    } else if (grant.state() == Grant.State.HELD) {
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
                nextWake = Math.min(nextWake, retry);
            }
        }
        return nextWake - System.nanoTime();
    }

    private static void sleepQuietly(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
