package io.fencepost.lock.benchmarks.clients;

import java.time.Duration;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@code RLock} on the local Redis (single server), as its documentation shows: {@code getLock(key)},
 * acquired without a lease time so that the lock watchdog keeps it, unlocked by the holding thread.
 */
public final class RedissonLockClient extends ConcurrentLockClient {

    private final RedissonClient redisson;

    public RedissonLockClient(ClientContext context) {
        this(context, null);
    }

    /** With {@code watchdogTimeout} set, held locks are extended every third of it (the renewal scenario). */
    public RedissonLockClient(ClientContext context, Duration watchdogTimeout) {
        this(Redisson.create(config(context, watchdogTimeout)));
    }

    private RedissonLockClient(RedissonClient redisson) {
        super(redisson::getLock);
        this.redisson = redisson;
    }

    static Config config(ClientContext context, Duration watchdogTimeout) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + context.redisHost() + ":" + context.redisPort());
        if (watchdogTimeout != null) {
            config.setLockWatchdogTimeout(watchdogTimeout.toMillis());
        }
        return config;
    }

    public RedissonClient redisson() {
        return redisson;
    }

    @Override
    public void close() {
        redisson.shutdown();
    }
}
