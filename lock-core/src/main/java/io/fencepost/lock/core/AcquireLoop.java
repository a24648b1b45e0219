package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.spi.AcquireResult;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Attempts to take a key until it is granted or the wait ends: between attempts it pauses until a wake-up, the
 * holder's known expiry, or the poll interval (the push fallback while the store delivers wake-ups, jittered backoff
 * otherwise). A store failure while waiting is retried until the wait ends; only a store that stays down fails the
 * acquisition. What an attempt is, and what wakes the caller, is the {@link Attempts} of the acquisition mode.
 */
final class AcquireLoop {

    /** Returned by {@link Attempts#knownBusyNanos()} when the store must be asked. */
    static final long CALL_STORE = Long.MIN_VALUE;

    /** One acquisition mode's part of the loop. */
    interface Attempts {

        /** A lease handed to the caller meanwhile, which is then the caller's. */
        Optional<Lease> handedOver();

        /** How long the key is known to stay busy without asking the store, or {@link #CALL_STORE}. */
        long knownBusyNanos();

        /**
         * The owner token of the next attempt: a fresh one each time, unless the store already knows the caller's
         * (a registered waiter).
         */
        default String ownerToken() {
            return UUID.randomUUID().toString();
        }

        /** One attempt in the store, for a grant with {@code ownerToken}. */
        AcquireResult attempt(String ownerToken);

        /**
         * The earliest moment (nanoTime) a lease that the attempt sent at {@code sentNanos} returned can have started:
         * that moment, unless the attempt may return a lease handed to the caller before it was sent.
         */
        default long grantedNoEarlierThan(long sentNanos) {
            return sentNanos;
        }

        /**
         * Whether a release will wake the caller after an attempt that found the key busy and learnt for how long:
         * then the caller re-checks only at the push fallback; otherwise it polls with backoff.
         */
        boolean promisesWakeUp();

        /** Waits up to {@code nanos} for a wake-up. */
        void pause(long nanos) throws InterruptedException;
    }

    private final long minBackoffNanos;

    private final long maxBackoffNanos;

    private final long pushFallbackNanos;

    private final Grants grants;

    private final LeaseEvents events;

    AcquireLoop(EngineSettings settings, Grants grants, LeaseEvents events) {
        this.minBackoffNanos = settings.minBackoff().toNanos();
        this.maxBackoffNanos = settings.maxBackoff().toNanos();
        this.pushFallbackNanos = settings.pushFallback().toNanos();
        this.grants = grants;
        this.events = events;
    }

    /** Attempts until granted or {@code call}'s wait ends. */
    Optional<Lease> run(AcquireCall call, Attempts attempts) throws InterruptedException {
        LockStoreException lastFailure = null;
        for (int round = 0; ; round++) {
            Optional<Lease> handed = attempts.handedOver();
            if (handed.isPresent()) {
                return handed;
            }
            long knownBusyNanos = attempts.knownBusyNanos();
            if (knownBusyNanos == CALL_STORE) {
                String ownerToken = attempts.ownerToken();
                long sent = System.nanoTime();
                AcquireResult result;
                try {
                    result = attempts.attempt(ownerToken);
                    lastFailure = null;
                } catch (RuntimeException e) {
                    // A store failure while waiting (a dropped pooled connection, a restart) is retried until the
                    // wait ends; the acquisition still fails closed, with this failure, if the store stays down.
                    lastFailure = storeFailure(call, e);
                    if (call.remainingNanos() <= 0) {
                        throw reported(call, lastFailure);
                    }
                    result = AcquireResult.Busy.unknown();
                }
                if (result instanceof AcquireResult.Granted granted) {
                    return Optional.of(grants.granted(call, ownerToken, granted, attempts.grantedNoEarlierThan(sent)));
                }
                knownBusyNanos = ((AcquireResult.Busy) result)
                        .remaining()
                        .map(d -> d.toNanos() + TimeUnit.MILLISECONDS.toNanos(1))
                        .orElse(Long.MAX_VALUE);
            }
            long remainingWait = call.remainingNanos();
            if (remainingWait <= 0) {
                handed = attempts.handedOver();
                if (handed.isPresent()) {
                    return handed;
                }
                if (lastFailure != null) {
                    throw reported(call, lastFailure);
                }
                return notAcquired(call);
            }
            // A wake-up is only promised when the store could tell the key's state (it then noted that we wait);
            // after an attempt that could not (another grant committed after our statement's snapshot), poll.
            boolean promised = attempts.promisesWakeUp() && knownBusyNanos != Long.MAX_VALUE;
            long poll = promised ? pushFallbackNanos : backoff(round);
            attempts.pause(Math.min(Math.min(poll, Math.max(0, knownBusyNanos)), remainingWait));
        }
    }

    /** The call ends without the lease. */
    Optional<Lease> notAcquired(AcquireCall call) {
        events.notAcquired(call);
        return Optional.empty();
    }

    /** The call was interrupted while waiting: it ends without the lease, with the interrupt restored. */
    Optional<Lease> interrupted(AcquireCall call) {
        Thread.currentThread().interrupt();
        events.notAcquired(call);
        throw new LockNotAcquiredException(call.key(), "interrupted while waiting for lock '" + call.key() + "'");
    }

    /** Runs a store call of the acquisition that has no loop around it; a failure fails the acquisition. */
    <T> T once(AcquireCall call, Supplier<T> storeCall) {
        try {
            return storeCall.get();
        } catch (RuntimeException e) {
            throw reported(call, storeFailure(call, e));
        }
    }

    /** A store call's failure as the acquisition reports it; a caller's mistake found by the store is rethrown. */
    static LockStoreException storeFailure(AcquireCall call, RuntimeException e) {
        if (e instanceof IllegalStateException mistake) {
            // The store found a mistake of the caller's (callers of a key that disagree on its permits): no retry
            // can mend it, and it is no store failure.
            throw mistake;
        }
        return e instanceof LockStoreException storeFailure
                ? storeFailure
                : new LockStoreException("could not acquire lock '" + call.key() + "': the lock store failed: " + e, e);
    }

    /** Tells the listener that {@code call} failed with {@code failure}, and returns it to throw. */
    LockStoreException reported(AcquireCall call, LockStoreException failure) {
        events.acquireFailed(call, failure);
        return failure;
    }

    /** Exponential backoff with full jitter between the minimum and maximum backoff. */
    long backoff(int attempt) {
        long ceiling = minBackoffNanos << Math.min(attempt, 20);
        if (ceiling <= 0 || ceiling > maxBackoffNanos) {
            ceiling = maxBackoffNanos;
        }
        return ThreadLocalRandom.current().nextLong(Math.max(1, ceiling / 2), ceiling + 1);
    }
}
