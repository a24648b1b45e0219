package io.fencepost.lock.benchmarks.clients;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ObjIntConsumer;
import org.redisson.Redisson;
import org.redisson.api.RObject;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

/**
 * Redisson's semaphores with {@code n} permits per key, set once per key with {@code trySetPermits(n)} as its
 * documentation shows. {@code RPermitExpirableSemaphore} grants a permit with a lease time and an id that its release
 * and {@code updateLeaseTime} must present (the closest to Fencepost's permits); a plain {@code RSemaphore} is a
 * counter whose permits never expire, so a holder that dies keeps its permit for good. Neither is renewed while
 * held: the lease time is the same 30 s as everywhere else, longer than any hold here.
 */
public final class RedissonSemaphoreClient implements LockClient, ExtendableClient {

    private final RedissonClient redisson;

    private final boolean expirable;

    private final int permits;

    private final Duration leaseTime;

    /** The semaphores this client has set up, each once (the others' threads wait for it meanwhile). */
    private final Map<String, RObject> semaphores = new ConcurrentHashMap<>();

    private RedissonSemaphoreClient(ClientContext context, boolean expirable, int permits) {
        this.redisson = Redisson.create(RedissonLockClient.config(context, null));
        this.expirable = expirable;
        this.permits = permits;
        this.leaseTime = context.leaseTime();
    }

    /** {@code RPermitExpirableSemaphore}: leased permits with ids. */
    public static RedissonSemaphoreClient expirable(ClientContext context, int permits) {
        return new RedissonSemaphoreClient(context, true, permits);
    }

    /** {@code RSemaphore}: a counter of permits, no lease. */
    public static RedissonSemaphoreClient plain(ClientContext context, int permits) {
        return new RedissonSemaphoreClient(context, false, permits);
    }

    @Override
    public Held acquire(String key, Duration wait) throws Exception {
        if (expirable) {
            RPermitExpirableSemaphore semaphore = expirable(key);
            String id = semaphore.tryAcquire(wait.toMillis(), leaseTime.toMillis(), TimeUnit.MILLISECONDS);
            return id == null ? null : () -> semaphore.release(id);
        }
        RSemaphore semaphore = plain(key);
        return semaphore.tryAcquire(wait) ? semaphore::release : null;
    }

    @Override
    public Held tryAcquire(String key) throws Exception {
        return acquire(key, Duration.ZERO);
    }

    /** {@code updateLeaseTime(permitId, leaseTime)} on a permit of an {@code RPermitExpirableSemaphore}. */
    @Override
    public Extendable hold(String key) throws Exception {
        if (!expirable) {
            throw new UnsupportedOperationException("an RSemaphore permit has no lease to extend");
        }
        RPermitExpirableSemaphore semaphore = expirable(key);
        String id = semaphore.tryAcquire(0, leaseTime.toMillis(), TimeUnit.MILLISECONDS);
        if (id == null) {
            throw new IllegalStateException("Redisson did not get a permit of the free key '" + key + "'");
        }
        return new Extendable() {
            @Override
            public boolean extend(Duration time) {
                return semaphore.updateLeaseTime(id, time.toMillis(), TimeUnit.MILLISECONDS);
            }

            @Override
            public void release() {
                semaphore.release(id);
            }
        };
    }

    private RPermitExpirableSemaphore expirable(String key) {
        return semaphore(key, redisson::getPermitExpirableSemaphore, RPermitExpirableSemaphore::trySetPermits);
    }

    private RSemaphore plain(String key) {
        return semaphore(key, redisson::getSemaphore, RSemaphore::trySetPermits);
    }

    /**
     * The semaphore of {@code key}, set up on first use. A semaphore outlives its holders in Redis (unlike a lock's
     * key), so one left by an earlier run, perhaps with permits still taken, is deleted first.
     */
    @SuppressWarnings("unchecked") // a client makes one kind of semaphore, so an entry is of the kind asked for
    private <S extends RObject> S semaphore(String key, Function<String, S> get, ObjIntConsumer<S> setPermits) {
        return (S) semaphores.computeIfAbsent(key, k -> {
            S semaphore = get.apply(k);
            semaphore.delete();
            setPermits.accept(semaphore, permits);
            return semaphore;
        });
    }

    @Override
    public void close() {
        redisson.shutdown();
    }
}
