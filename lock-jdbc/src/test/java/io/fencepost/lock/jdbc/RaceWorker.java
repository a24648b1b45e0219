package io.fencepost.lock.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A separate JVM in the race test: {@code threads} threads each run {@code iterations} critical sections on one
 * key, each a deliberately non-atomic read-modify-write of a counter row plus a log of the grant's token.
 *
 * <p>Arguments: jdbcUrl key threads iterations processName.
 */
public final class RaceWorker {

    private RaceWorker() {}

    public static void main(String[] args) throws Exception {
        String jdbcUrl = args[0];
        String key = args[1];
        int threads = Integer.parseInt(args[2]);
        int iterations = Integer.parseInt(args[3]);
        String process = args[4];
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(threads + 2);
        try (HikariDataSource dataSource = new HikariDataSource(config);
                PostgresLockManager locks = PostgresLockManager.builder(dataSource)
                        .schemaMode(SchemaMode.VALIDATE)
                        .holderName(process)
                        .build()) {
            LockOptions options = LockOptions.builder()
                    .leaseTime(Duration.ofSeconds(10))
                    .waitTime(Duration.ofMinutes(2))
                    .build();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String thread = process + "-" + t;
                results.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < iterations; i++) {
                        try (Lease lease = locks.acquire(key, options)) {
                            criticalSection(dataSource, lease.fencingToken(), thread);
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> result : results) {
                result.get(5, TimeUnit.MINUTES);
            }
            pool.shutdown();
        }
        System.out.println("worker " + process + " done");
    }

    private static void criticalSection(HikariDataSource dataSource, long token, String thread) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            long value;
            try (PreparedStatement read = connection.prepareStatement("SELECT value FROM race_counter WHERE id = 1");
                    ResultSet rs = read.executeQuery()) {
                rs.next();
                value = rs.getLong(1);
            }
            Thread.yield(); // widen the window a lost update needs
            try (PreparedStatement write =
                    connection.prepareStatement("UPDATE race_counter SET value = ? WHERE id = 1")) {
                write.setLong(1, value + 1);
                write.executeUpdate();
            }
            try (PreparedStatement log =
                    connection.prepareStatement("INSERT INTO race_grant (token, thread) VALUES (?, ?)")) {
                log.setLong(1, token);
                log.setString(2, thread);
                log.executeUpdate();
            }
        }
    }
}
