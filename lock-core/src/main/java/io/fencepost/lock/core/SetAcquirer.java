package io.fencepost.lock.core;

import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.MultiLease;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.MultiAcquireRequest;
import io.fencepost.lock.spi.MultiAcquireResult;
import io.fencepost.lock.spi.MultiKeyAcquire;
import io.fencepost.lock.spi.StoreLimits;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Takes several keys at once: every attempt is one all-or-nothing step of the store ({@link MultiKeyAcquire}), so the
 * caller never holds some keys of the set while it waits for the others. Between attempts it waits like a single-key
 * waiter that is not in line: a release of any key of the set wakes it (a hint, when the store pushes one), else the
 * backoff or the busy key's known expiry, whichever comes first; then it tries the whole set again.
 */
final class SetAcquirer {

    private final LeaseStore store;

    /** Null when the store cannot take several keys in one step: sets are then refused. */
    private final MultiKeyAcquire ability;

    private final String holderName;

    private final HeldLeases held;

    private final Grants grants;

    private final Releases releases;

    private final AcquireLoop loop;

    SetAcquirer(
            LeaseStore store,
            MultiKeyAcquire ability,
            String holderName,
            HeldLeases held,
            Grants grants,
            Releases releases,
            AcquireLoop loop) {
        this.store = store;
        this.ability = ability;
        this.holderName = holderName;
        this.held = held;
        this.grants = grants;
        this.releases = releases;
        this.loop = loop;
    }

    /**
     * Every key of {@code keys}, or empty when some key stayed busy for the whole wait.
     *
     * @param throwWhenBusy whether a set that stayed busy throws {@link LockNotAcquiredException} (naming the busy
     *     key) rather than returning empty
     * @throws IllegalArgumentException for a set or options that cannot be taken together, before the store is asked
     */
    Optional<MultiLease> acquire(Collection<String> keys, LockOptions options, boolean throwWhenBusy) {
        List<String> ordered = StoreLimits.requireValidKeySet(keys);
        Objects.requireNonNull(options, "options must not be null (use LockOptions.defaults())");
        requireTakableTogether(ordered, options);
        List<AcquireCall> calls = new ArrayList<>(ordered.size());
        long start = System.nanoTime();
        for (String key : ordered) {
            calls.add(new AcquireCall(key, options, start));
        }
        AcquireCall first = calls.get(0);
        Semaphore wakeUps = new Semaphore(0);
        List<LeaseStore.Subscription> subscriptions = new ArrayList<>();
        try {
            if (first.waits()) {
                // Before the first attempt: a release after it then always wakes us (where the store pushes).
                for (String key : ordered) {
                    subscriptions.add(store.subscribe(key, wakeUps::release));
                }
            }
            return attemptUntilDeadline(calls, wakeUps, throwWhenBusy);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            loop.notAcquired(first);
            throw new LockNotAcquiredException(
                    first.key(), "interrupted while waiting for the set of locks " + ordered);
        } finally {
            subscriptions.forEach(LeaseStore.Subscription::close);
        }
    }

    private void requireTakableTogether(List<String> keys, LockOptions options) {
        if (options.shared() || options.permits() != 1) {
            throw new IllegalArgumentException("a set of keys takes exclusive leases only, but the options ask for "
                    + (options.shared() ? "shared leases" : options.permits() + " permits") + " (keys " + keys
                    + "): take shared leases or permits one key at a time");
        }
        if (options.fair()) {
            throw new IllegalArgumentException("fair mode is not offered for a set of keys (keys " + keys
                    + "): drop fair, or take the keys one at a time");
        }
        if (ability == null) {
            throw new UnsupportedOperationException("a set of keys was asked for (keys " + keys + "), but "
                    + store.getClass().getSimpleName() + " cannot take several keys in one step (MultiKeyAcquire);"
                    + " use a store that can (PostgreSQL and in-memory do), or take the keys one at a time");
        }
        if (options.reentrant()) {
            for (String key : keys) {
                if (held.heldByCurrentThread(key)) {
                    // Reentering one key of a set would let its release end a hold the thread took on its own.
                    throw new IllegalStateException("lock '" + key + "' of the set " + keys
                            + " is already held by this thread: leave it out of the set, or release it first");
                }
            }
        }
    }

    private Optional<MultiLease> attemptUntilDeadline(List<AcquireCall> calls, Semaphore wakeUps, boolean throwWhenBusy)
            throws InterruptedException {
        AcquireCall first = calls.get(0);
        LockStoreException lastFailure = null;
        for (int round = 0; ; round++) {
            List<AcquireRequest> requests = new ArrayList<>(calls.size());
            for (AcquireCall call : calls) {
                requests.add(call.request(UUID.randomUUID().toString(), holderName));
            }
            wakeUps.drainPermits(); // a wake-up from now on is about this attempt's outcome
            long sent = System.nanoTime();
            MultiAcquireResult result;
            try {
                result = ability.acquireAll(new MultiAcquireRequest(requests));
                lastFailure = null;
            } catch (RuntimeException e) {
                // As for one key: a store failure while waiting is retried until the wait ends.
                lastFailure = AcquireLoop.storeFailure(first, e);
                if (first.remainingNanos() <= 0) {
                    throw loop.reported(first, lastFailure);
                }
                result = MultiAcquireResult.Busy.unknown();
            }
            if (result instanceof MultiAcquireResult.Granted granted) {
                return Optional.of(leases(calls, requests, granted, sent));
            }
            MultiAcquireResult.Busy busy = (MultiAcquireResult.Busy) result;
            long left = first.remainingNanos();
            if (left <= 0) {
                if (lastFailure != null) {
                    throw loop.reported(first, lastFailure);
                }
                AcquireCall busyCall = calls.stream()
                        .filter(call -> busy.key().filter(call.key()::equals).isPresent())
                        .findFirst()
                        .orElse(first);
                loop.notAcquired(busyCall);
                if (throwWhenBusy) {
                    throw new LockNotAcquiredException(
                            busyCall.key(), busyCall.options().waitTime(), busyCall.waited());
                }
                return Optional.empty();
            }
            long pause = Math.min(loop.backoff(round), left);
            if (busy.remaining().isPresent()) {
                long expiry = busy.remaining().get().toNanos() + TimeUnit.MILLISECONDS.toNanos(1);
                pause = Math.min(pause, expiry);
            }
            wakeUps.tryAcquire(pause, TimeUnit.NANOSECONDS);
        }
    }

    private LeaseSet leases(
            List<AcquireCall> calls, List<AcquireRequest> requests, MultiAcquireResult.Granted granted, long sent) {
        if (granted.grants().size() != calls.size()) {
            throw new IllegalStateException(
                    "the store granted " + granted.grants().size() + " leases for a set of " + calls.size()
                            + " keys: a MultiKeyAcquire store must grant every key or none");
        }
        List<LeaseHold> leases = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            leases.add(grants.granted(
                    calls.get(i), requests.get(i).ownerToken(), granted.grants().get(i), sent));
        }
        return new LeaseSet(leases, releases, ability);
    }
}
