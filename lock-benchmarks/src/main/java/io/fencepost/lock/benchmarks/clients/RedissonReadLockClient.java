package io.fencepost.lock.benchmarks.clients;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * The read side of Redisson's {@code RReadWriteLock} ({@code getReadWriteLock(key).readLock()}), acquired without a
 * lease time so that the lock watchdog keeps it, unlocked by the holding thread: what Fencepost's shared leases
 * compare with.
 */
public final class RedissonReadLockClient extends ConcurrentLockClient {

    private final RedissonClient redisson;

    public RedissonReadLockClient(ClientContext context) {
        this(Redisson.create(RedissonLockClient.config(context, null)));
    }

    private RedissonReadLockClient(RedissonClient redisson) {
        super(key -> redisson.getReadWriteLock(key).readLock());
        this.redisson = redisson;
    }

    @Override
    public void close() {
        redisson.shutdown();
    }
}
