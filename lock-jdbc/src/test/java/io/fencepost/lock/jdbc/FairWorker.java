package io.fencepost.lock.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The other JVM of the fair-mode test: for every {@code wait <name>} line it starts a thread that waits fairly
 * for the key, prints {@code granted <name> <fencing token>}, holds it briefly and releases.
 *
 * <p>Arguments: jdbcUrl key.
 */
public final class FairWorker {

    private FairWorker() {}

    public static void main(String[] args) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[0]);
        config.setMaximumPoolSize(4);
        LockOptions fair = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(30))
                .waitTime(Duration.ofSeconds(60))
                .fair(true)
                .build();
        ExecutorService threads = Executors.newCachedThreadPool();
        try (HikariDataSource dataSource = new HikariDataSource(config);
                PostgresLockManager locks = PostgresLockManager.builder(dataSource)
                        .schemaMode(SchemaMode.VALIDATE)
                        .holderName("fair-worker")
                        .build();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            System.out.println("ready");
            String line;
            while ((line = in.readLine()) != null && line.startsWith("wait ")) {
                String name = line.substring("wait ".length());
                threads.submit(() -> {
                    try (Lease lease = locks.acquire(args[1], fair)) {
                        synchronized (System.out) {
                            System.out.println("granted " + name + " " + lease.fencingToken());
                        }
                        Thread.sleep(20); // hold the key for a moment, like real work
                    }
                    return null;
                });
            }
            threads.shutdown();
            threads.awaitTermination(2, TimeUnit.MINUTES);
        }
    }
}
