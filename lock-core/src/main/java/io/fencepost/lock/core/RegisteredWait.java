package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.internal.LogSafe;
import io.fencepost.lock.internal.RecentKeys;
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
 * One wait registered with the store's {@link WaiterRelay} (of the head of a key's line, or of a fair caller): its
 * attempts register (or refresh) it under one owner token, a release elsewhere may hand it the lease, and when the
 * wait ends without the lease the registration is withdrawn.
 */
final class RegisteredWait {

    private static final System.Logger LOG = System.getLogger(RegisteredWait.class.getName());

    private final LeaseStore store;

    private final WaiterRelay relay;

    private final Grants grants;

    private final Releases releases;

    private final RecentKeys busyKeys;

    private final AcquireCall call;

    private final Registration registration;

    private final String ownerToken;

    private final LeaseStore.Subscription handOvers;

    private final AtomicReference<AcquireResult.Granted> handed = new AtomicReference<>();

    /**
     * When the latest attempt that found the key busy was sent (nanoTime): a lease handed to us later started after
     * that attempt read the key, so not before then. An attempt still on its way is no such bound.
     */
    private long busySentNanos;

    /** Whether an attempt found the key busy, so that {@link #busySentNanos} is set. */
    private boolean foundBusy;

    private boolean attempted;

    /** The store removed the registration itself: an attempt was granted, or a release handed us the lease. */
    private boolean settled;

    RegisteredWait(
            LeaseStore store,
            WaiterRelay relay,
            Grants grants,
            Releases releases,
            RecentKeys busyKeys,
            AcquireCall call,
            String ownerToken,
            Duration ttl,
            boolean inTurn,
            Runnable wakeUp) {
        this.store = store;
        this.relay = relay;
        this.grants = grants;
        this.releases = releases;
        this.busyKeys = busyKeys;
        this.call = call;
        this.registration = new Registration(call.key(), UUID.randomUUID().toString(), ttl, inTurn);
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

    AcquireResult attempt(String holderName) {
        AcquireRequest request = call.request(ownerToken, holderName);
        long sent = System.nanoTime();
        if (!attempted && !registration.inTurn() && !busyKeys.contains(call.key())) {
            // The first attempt is a plain one: most keys are free, and taking a free key should cost no more than
            // it does without registrations. Only a busy key is worth registering for, at once; so is a key that
            // this manager's waits found busy a moment ago. (A waiter in turn must not take a free key past older
            // registrations, which only the registering statement checks.)
            AcquireResult first = store.acquire(request);
            if (first instanceof AcquireResult.Granted) {
                settled = true;
                return first;
            }
            sent = System.nanoTime();
        }
        attempted = true;
        AcquireResult result = relay.acquireOrRegister(request, registration);
        if (result instanceof AcquireResult.Granted) {
            settled = true;
        } else {
            busySentNanos = sent;
            foundBusy = true;
            busyKeys.mark(call.key());
        }
        return result;
    }

    /**
     * The earliest moment a lease returned by an attempt sent at {@code sentNanos} can have started. Once an attempt
     * found the key busy, a release may hand the lease to this registration before a later attempt, which then finds
     * the key already ours: such a lease started after that busy attempt read the key, not necessarily after the
     * later one was sent. Counting it from the later one would let the holder believe in its lease after it ended.
     */
    long grantedNoEarlierThan(long sentNanos) {
        return foundBusy ? Math.min(sentNanos, busySentNanos) : sentNanos;
    }

    /**
     * The lease a release handed us, if its message came; it is then the caller's. It counts from our last attempt that
     * found the key busy: the grant came after that attempt read the key.
     */
    Optional<Lease> handedOver() {
        AcquireResult.Granted granted = handed.getAndSet(null);
        if (granted == null) {
            return Optional.empty();
        }
        settled = true;
        return Optional.of(grants.granted(call, ownerToken, granted, busySentNanos));
    }

    /**
     * How long the waiter may pause at most between attempts: a lease handed to it counts from its last attempt, so
     * that lease should keep most of its time, and the registration must not lapse.
     */
    long refreshNanos() {
        return Math.min(
                call.options().leaseTime().toNanos() / 4, registration.ttl().toNanos() / 3);
    }

    /** The lease of a grant that an attempt sent at {@code sentNanos} returned; it is then the caller's. */
    Lease granted(AcquireResult.Granted granted, long sentNanos) {
        settled = true;
        return grants.granted(call, ownerToken, granted, grantedNoEarlierThan(sentNanos));
    }

    /**
     * For a caller that does not wait, after its attempt found the key busy: withdraws the registration, and when a
     * release handed it the key meanwhile, returns that grant, which another attempt finds ours (counted from the
     * attempt that found the key busy, by {@link #grantedNoEarlierThan}). Empty when nothing was handed over, or the
     * store failed: {@link #end} then withdraws again, and frees a key handed over unnoticed.
     */
    Optional<AcquireResult.Granted> withdrawTakingHandOver(String holderName) {
        try {
            if (!relay.withdraw(registration, ownerToken)) {
                settled = true;
                return Optional.empty();
            }
            if (relay.acquireOrRegister(call.request(ownerToken, holderName), registration)
                    instanceof AcquireResult.Granted granted) {
                settled = true;
                return Optional.of(granted);
            }
        } catch (RuntimeException e) {
            withdrawalFailed(e);
        }
        return Optional.empty();
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
    void end() {
        handOvers.close();
        if (!attempted || settled) {
            return;
        }
        try {
            if (relay.withdraw(registration, ownerToken)) {
                releases.releaseUnclaimed(registration.key(), ownerToken);
            }
        } catch (RuntimeException e) {
            withdrawalFailed(e);
        }
    }

    /**
     * A withdrawal failed: the registration then lapses on its own, and until then a release may hand it a lease
     * nobody takes, which keeps the key for that lease's time.
     */
    private void withdrawalFailed(RuntimeException e) {
        LOG.log(
                Level.WARNING,
                "could not withdraw from the waiters of lock ''{0}'': {1}",
                LogSafe.text(registration.key()),
                LogSafe.text(e.toString()));
    }
}
