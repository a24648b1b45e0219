package io.fencepost.lock.benchmarks.clients;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * Redisson's {@code RedissonMultiLock} as its documentation shows it: {@code getMultiLock(getLock(k1), getLock(k2),
 * …)}, taken with a timed {@code tryLock} (no lease time: the watchdog keeps every lock) and {@code unlock()}ed by the
 * holding thread. It takes the locks one after the other, each its own round trip, in the order given.
 */
public final class RedissonMultiLockClient implements SetClient {

    private final RedissonClient redisson;

    public RedissonMultiLockClient(ClientContext context) {
        this.redisson = Redisson.create(RedissonLockClient.config(context, null));
    }

    @Override
    public LockClient.Held acquire(List<String> keys, Duration wait) throws InterruptedException {
        RLock set = redisson.getMultiLock(keys.stream().map(redisson::getLock).toArray(RLock[]::new));
        return set.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS) ? set::unlock : null;
    }

    @Override
    public void close() {
        redisson.shutdown();
    }
}
