package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LeaseStore;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Fair mode ({@link io.fencepost.lock.LockOptions#fair()}) over a store that relays releases to registered waiters:
 * every caller registers in turn, releases hand the key to the oldest registration of all clients, and nobody takes a
 * free key past an older one. The store keeps the order of all callers, so the callers of this manager need no line
 * of their own. It differs from the ordinary mode's registered waits only in {@code inTurn}.
 *
 * <p>Fair waiters do not wait in the store's queue ({@link QueuePlaces}): a manager's place there is shared by all its
 * callers of the key, so while one of them held it, every later caller of that manager would register at once, past
 * the earlier waiters of other processes still blocked behind the place. The registrations alone keep arrival order.
 */
record FairAcquirer(LeaseStore store, RegisteredWaits registrations, String holderName, AcquireLoop loop) {

    Optional<Lease> acquire(AcquireCall call) {
        return call.waits() ? awaitTurn(call) : tryInTurn(call);
    }

    /**
     * A caller that does not wait takes the key only when no older registration waits for it: one registering attempt
     * in turn, then, unless granted, a withdrawal. A release may hand the key to the registration between the two;
     * that lease is then the caller's, as a successful try.
     */
    private Optional<Lease> tryInTurn(AcquireCall call) {
        RegisteredWait registered = registrations.open(call, UUID.randomUUID().toString(), true, () -> {});
        try {
            long sent = System.nanoTime();
            AcquireResult result = loop.once(call, () -> registered.attempt(holderName));
            Optional<AcquireResult.Granted> granted = result instanceof AcquireResult.Granted g
                    ? Optional.of(g)
                    : registered.withdrawTakingHandOver(holderName);
            return granted.isPresent() ? Optional.of(registered.granted(granted.get(), sent)) : loop.notAcquired(call);
        } finally {
            registered.end();
        }
    }

    private Optional<Lease> awaitTurn(AcquireCall call) {
        Semaphore wakeUps = new Semaphore(0);
        Runnable wake = () -> {
            if (wakeUps.availablePermits() == 0) {
                wakeUps.release();
            }
        };
        LeaseStore.Subscription subscription = store.subscribe(call.key(), wake);
        RegisteredWait registered = registrations.open(call, UUID.randomUUID().toString(), true, wake);
        Optional<Lease> lease = Optional.empty();
        try {
            lease = loop.run(call, new AcquireLoop.Attempts() {
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
            return lease;
        } catch (InterruptedException e) {
            return loop.interrupted(call);
        } finally {
            subscription.close();
            registered.end();
        }
    }
}
