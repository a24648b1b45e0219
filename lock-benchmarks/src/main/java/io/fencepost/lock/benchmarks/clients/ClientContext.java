package io.fencepost.lock.benchmarks.clients;

import java.time.Duration;
import javax.sql.DataSource;

/**
 * What a client needs from its environment: the connection pool of its JVM (for the libraries on PostgreSQL) and
 * the Redis address (for Redisson).
 *
 * @param leaseTime how long a grant lasts where the library asks for it (all get the same)
 */
public record ClientContext(DataSource dataSource, String redisHost, int redisPort, Duration leaseTime) {

    public static final Duration LEASE_TIME = Duration.ofSeconds(30);
}
