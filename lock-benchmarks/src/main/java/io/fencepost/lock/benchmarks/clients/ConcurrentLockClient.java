package io.fencepost.lock.benchmarks.clients;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

/**
 * A library whose locks are {@link Lock}s (Redisson's {@code RLock}, Spring Integration's registry locks): waiting
 * is the lock's own timed {@code tryLock}, and the holding thread unlocks it.
 */
abstract class ConcurrentLockClient implements LockClient {

    private final Function<String, ? extends Lock> locks;

    /** {@code locks} gives the library's lock for a key, obtained the way its documentation shows. */
    ConcurrentLockClient(Function<String, ? extends Lock> locks) {
        this.locks = locks;
    }

    @Override
    public final Held acquire(String key, Duration wait) throws Exception {
        Lock lock = locks.apply(key);
        return lock.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS) ? lock::unlock : null;
    }

    @Override
    public final Held tryAcquire(String key) {
        Lock lock = locks.apply(key);
        return lock.tryLock() ? lock::unlock : null;
    }
}
