package io.fencepost.lock.core;

import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.Registration;
import io.fencepost.lock.spi.WaiterRelay;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One wait of the head of a key's line, registered with the store's {@link WaiterRelay}: its attempts register (or
 * refresh) it under one owner token, a release elsewhere may hand it the lease, and when the wait ends without the
 * lease the registration is withdrawn.
 */
final class RegisteredWait {

    private static final System.Logger LOG = System.getLogger(RegisteredWait.class.getName());

    private final WaiterRelay relay;

    private final Registration registration;

    private final String ownerToken;

    private final LeaseStore.Subscription handOvers;

    private final AtomicReference<AcquireResult.Granted> handed = new AtomicReference<>();

    /**
     * When the latest attempt that found the key busy was sent (nanoTime): a lease handed to us later started after
     * that attempt read the key, so not before then. An attempt still on its way is no such bound.
     */
    private long busySentNanos;

    private boolean attempted;

    /** The store removed the registration itself: an attempt was granted, or a release handed us the lease. */
    private boolean settled;

    RegisteredWait(WaiterRelay relay, String key, String ownerToken, Duration ttl, boolean inTurn, Runnable wakeUp) {
        this.relay = relay;
        this.registration = new Registration(key, UUID.randomUUID().toString(), ttl, inTurn);
        this.ownerToken = ownerToken;
        this.handOvers = relay.onHandOver(registration, ownerToken, granted -> {
            handed.compareAndSet(null, granted);
            wakeUp.run();
        });
    }

    String ownerToken() {
        return ownerToken;
    }

    /** Whether a release's message will reach us now. */
    boolean delivers() {
        return handOvers.delivers();
    }

    AcquireResult attempt(AcquireRequest request) {
        long sent = System.nanoTime();
        attempted = true;
        AcquireResult result = relay.acquireOrRegister(request, registration);
        if (result instanceof AcquireResult.Granted) {
            settled = true;
        } else {
            busySentNanos = sent;
        }
        return result;
    }

    /** The grant a release handed us, if its message came; it is then the caller's. */
    Optional<AcquireResult.Granted> handedOver() {
        AcquireResult.Granted granted = handed.getAndSet(null);
        if (granted != null) {
            settled = true;
        }
        return Optional.ofNullable(granted);
    }

    /** The earliest a lease handed to us can have started (nanoTime). */
    long handOverNotBeforeNanos() {
        return busySentNanos;
    }

    /**
     * How long the waiter may pause at most between attempts: a lease handed to it counts from its last attempt, so
     * that lease should keep most of its time, and the registration must not lapse.
     */
    long refreshNanos(AcquireCall call) {
        return Math.min(
                call.options().leaseTime().toNanos() / 4, registration.ttl().toNanos() / 3);
    }

    /** The wait got the lease by a local hand-over, whose statement ended the registration. */
    void settledLocally() {
        settled = true;
    }

    /**
     * Stops listening and, unless the store already removed it, withdraws the registration; a lease handed to it
     * unnoticed meanwhile is released at once. A failure is only logged: the registration then lapses on its own, and
     * until then a release may hand it a lease nobody takes, which keeps the key for that lease's time.
     */
    void end(Releases releases) {
        handOvers.close();
        if (!attempted || settled) {
            return;
        }
        try {
            if (relay.withdraw(registration, ownerToken)) {
                releases.releaseUnclaimed(registration.key(), ownerToken);
            }
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "could not withdraw from the waiters of lock ''{0}'': {1}",
                    registration.key(),
                    e.toString());
        }
    }
}
