package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.internal.LogSafe;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.FairQueue;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.QueueTicket;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Fair mode ({@link io.fencepost.lock.LockOptions#fair()}): every waiting caller takes a ticket in the store's
 * {@link FairQueue} on arrival, and the store grants only to the lowest live ticket of all clients. Inside this
 * manager the waiters of a key wait in ticket order and only the lowest ticket talks to the store. A caller that
 * does not wait takes no ticket and wins only while nobody is queued.
 */
final class FairAcquirer {

    private static final System.Logger LOG = System.getLogger(FairAcquirer.class.getName());

    private final LeaseStore store;

    private final FairQueue queue;

    private final String holderName;

    private final AcquireLoop loop;

    /** This client's identity in the store's queues: its attempts refresh all its tickets on a key together. */
    private final String waiterId = UUID.randomUUID().toString();

    /**
     * A ticket outlives several re-checks of its waiter, which refresh it; a dead waiter's ticket then lapses and
     * stops holding up the queue.
     */
    private final Duration ticketTtl;

    private final FairTickets tickets;

    private final RegisteredWaits registrations;

    FairAcquirer(
            LeaseStore store,
            FairQueue queue,
            RegisteredWaits registrations,
            String holderName,
            FairTickets tickets,
            AcquireLoop loop) {
        this.store = store;
        this.queue = queue;
        this.holderName = holderName;
        this.tickets = tickets;
        this.loop = loop;
        this.registrations = registrations;
        this.ticketTtl = registrations.ttl();
    }

    Optional<Lease> acquire(AcquireCall call) {
        if (registrations.available() && call.waits()) {
            return acquireRegistered(call);
        }
        String key = call.key();
        boolean waits = call.waits();
        QueueTicket ticket = waits
                ? loop.once(call, () -> queue.enqueue(key, waiterId, ticketTtl))
                : QueueTicket.notQueued(key, waiterId, ticketTtl);
        FairTickets.Line local = tickets.enter(key);
        local.add(ticket.number());
        LeaseStore.Subscription subscription = waits ? store.subscribe(key, local::wake) : LeaseStore.Subscription.NONE;
        Optional<Lease> lease = Optional.empty();
        try {
            lease = loop.run(call, new AcquireLoop.Attempts() {
                @Override
                public Optional<Lease> handedOver() {
                    return Optional.empty(); // fair leases are never handed over locally: that would jump the queue
                }

                @Override
                public long knownBusyNanos() {
                    boolean myTurn = waits ? local.isHead(ticket.number()) : local.isEmpty();
                    return myTurn ? AcquireLoop.CALL_STORE : Long.MAX_VALUE;
                }

                @Override
                public AcquireResult attempt(String ownerToken) {
                    return queue.acquireInTurn(call.request(ownerToken, holderName), ticket);
                }

                @Override
                public boolean promisesWakeUp() {
                    // A release wakes us, but whether we are the queue's head anywhere is decided by other clients'
                    // grants, which send nothing: always poll.
                    return false;
                }

                @Override
                public void pause(long nanos) throws InterruptedException {
                    local.await(nanos);
                }
            });
            return lease;
        } catch (InterruptedException e) {
            return loop.interrupted(call);
        } finally {
            subscription.close();
            local.remove(ticket.number());
            tickets.leave(key);
            if (lease.isEmpty() && ticket.queued()) {
                try {
                    queue.dequeue(ticket);
                } catch (RuntimeException e) {
                    // The ticket lapses on its own; until then it delays fair waiters by at most its lifetime.
                    LOG.log(
                            Level.WARNING,
                            "could not leave the queue of lock ''{0}'': {1}",
                            LogSafe.text(key),
                            LogSafe.text(e.toString()));
                }
            }
        }
    }

    /**
     * Fair waiting with a store that relays releases to registered waiters: every waiting caller registers in turn,
     * releases hand the key to the oldest registration, and nobody takes a free key past an older one. The store keeps
     * the order of all callers of all clients, so the callers of this manager need no line of their own.
     */
    private Optional<Lease> acquireRegistered(AcquireCall call) {
        Semaphore wakeUps = new Semaphore(0);
        Runnable wake = () -> {
            if (wakeUps.availablePermits() == 0) {
                wakeUps.release();
            }
        };
        LeaseStore.Subscription subscription = store.subscribe(call.key(), wake);
        RegisteredWait registered = registrations.open(call, UUID.randomUUID().toString(), true, wake);
        try {
            return loop.run(call, new AcquireLoop.Attempts() {
                @Override
                public Optional<Lease> handedOver() {
                    return registered.handedOver();
                }

                @Override
                public long knownBusyNanos() {
                    return AcquireLoop.CALL_STORE;
                }

                @Override
                public String ownerToken() {
                    return registered.ownerToken();
                }

                @Override
                public AcquireResult attempt(String ownerToken) {
                    return registered.attempt(holderName);
                }

                @Override
                public long grantedNoEarlierThan(long sentNanos) {
                    return registered.grantedNoEarlierThan(sentNanos);
                }

                @Override
                public boolean promisesWakeUp() {
                    return subscription.delivers() && registered.delivers();
                }

                @Override
                public void pause(long nanos) throws InterruptedException {
                    wakeUps.tryAcquire(Math.min(nanos, registered.refreshNanos()), TimeUnit.NANOSECONDS);
                    wakeUps.drainPermits();
                }
            });
        } catch (InterruptedException e) {
            return loop.interrupted(call);
        } finally {
            subscription.close();
            registered.end();
        }
    }
}
