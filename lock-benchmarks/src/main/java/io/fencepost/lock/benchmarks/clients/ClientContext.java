package io.fencepost.lock.benchmarks.clients;

import java.time.Duration;
import javax.sql.DataSource;

/**
 * What a client needs from its environment: the connection pool of its JVM (for the libraries on PostgreSQL) and
 * the Redis addresses (for Redisson).
 *
 * @param leaseTime how long a grant lasts where the library asks for it (all get the same)
 * @param fsyncRedisPort the port, on {@code redisHost}, of the second Redis the harness started with every write
 *     fsynced ({@code appendfsync always}); 0 when none runs
 */
public record ClientContext(
        DataSource dataSource, String redisHost, int redisPort, Duration leaseTime, int fsyncRedisPort) {

    public static final Duration LEASE_TIME = Duration.ofSeconds(30);

    /** Without the fsynced Redis. */
    public ClientContext(DataSource dataSource, String redisHost, int redisPort, Duration leaseTime) {
        this(dataSource, redisHost, redisPort, leaseTime, 0);
    }

    /** The same, with the connections of {@code pool}. */
    public ClientContext withDataSource(DataSource pool) {
        return new ClientContext(pool, redisHost, redisPort, leaseTime, fsyncRedisPort);
    }

    /** The same, with the fsynced Redis as the Redis. */
    ClientContext onFsyncRedis() {
        if (fsyncRedisPort == 0) {
            throw new IllegalStateException("no Redis with appendfsync always was started for this run");
        }
        return new ClientContext(dataSource, redisHost, fsyncRedisPort, leaseTime, fsyncRedisPort);
    }
}
