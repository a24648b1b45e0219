package io.fencepost.lock.reliability.checker;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.RenewRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/** Deliberately broken {@link LeaseStore}s over the real one, to show that the checker catches each bug. */
final class BrokenStores {

    private BrokenStores() {}

    static LeaseStore wrap(WorkerMode mode, LeaseStore real) {
        return switch (mode) {
            case IGNORES_EXPIRY ->
                new Forwarding(real) {
                    @Override
                    public AcquireResult tryAcquire(
                            String key, String ownerToken, String holder, Duration leaseTime, boolean waiting) {
                        AcquireResult result = real.tryAcquire(key, ownerToken, holder, leaseTime, waiting);
                        if (result instanceof AcquireResult.Busy) {
                            real.forceRelease(key); // the bug: a live lease is treated as free
                            return real.tryAcquire(key, ownerToken, holder, leaseTime, waiting);
                        }
                        return result;
                    }
                };
            case BLIND_RELEASE ->
                new Forwarding(real) {
                    @Override
                    public boolean release(String key, String ownerToken, Duration minHoldTime) {
                        return real.forceRelease(key); // the bug: no owner check
                    }
                };
            case PHANTOM_GRANT ->
                new Forwarding(real) {
                    @Override
                    public AcquireResult tryAcquire(
                            String key, String ownerToken, String holder, Duration leaseTime, boolean waiting) {
                        AcquireResult result = real.tryAcquire(key, ownerToken, holder, leaseTime, waiting);
                        if (result instanceof AcquireResult.Busy
                                && ThreadLocalRandom.current().nextInt(4) == 0) {
                            // the bug: "granted" without the database, with a token of its own making
                            Instant now = Instant.now();
                            return new AcquireResult.Granted(
                                    ThreadLocalRandom.current().nextLong(1L << 40, 1L << 50), now, now.plus(leaseTime));
                        }
                        return result;
                    }
                };
            case CORRECT, UNFENCED -> real;
        };
    }

    /** Passes every call to the real store; the broken variants override one method. */
    private static class Forwarding implements LeaseStore {

        private final LeaseStore real;

        Forwarding(LeaseStore real) {
            this.real = real;
        }

        @Override
        public AcquireResult tryAcquire(String key, String ownerToken, String holder, Duration leaseTime) {
            return tryAcquire(key, ownerToken, holder, leaseTime, false);
        }

        @Override
        public AcquireResult tryAcquire(
                String key, String ownerToken, String holder, Duration leaseTime, boolean waiting) {
            return real.tryAcquire(key, ownerToken, holder, leaseTime, waiting);
        }

        @Override
        public Map<String, Instant> renew(Collection<RenewRequest> requests) {
            return real.renew(requests);
        }

        @Override
        public boolean release(String key, String ownerToken, Duration minHoldTime) {
            return real.release(key, ownerToken, minHoldTime);
        }

        @Override
        public boolean forceRelease(String key) {
            return real.forceRelease(key);
        }

        @Override
        public Optional<LeaseInfo> inspect(String key) {
            return real.inspect(key);
        }

        @Override
        public Subscription subscribe(String key, Runnable listener) {
            return real.subscribe(key, listener);
        }
    }
}
