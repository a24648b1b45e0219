package io.fencepost.lock.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.CountingDataSource;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The other JVM of the hand-off test: for every {@code go} line on standard input it acquires the key (waiting),
 * prints {@code acquired <micros since epoch, database clock> <statements its wait took>}, and releases at once.
 *
 * <p>Arguments: jdbcUrl key.
 */
public final class HandOffWorker {

    private HandOffWorker() {}

    public static void main(String[] args) throws Exception {
        HikariConfig config = new HikariConfig();
        PGSimpleDataSource physical = new PGSimpleDataSource();
        physical.setURL(args[0]);
        CountingDataSource counting = new CountingDataSource(physical);
        config.setDataSource(counting);
        config.setMaximumPoolSize(4);
        LockOptions wait = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(30))
                .waitTime(Duration.ofSeconds(60))
                .build();
        try (HikariDataSource dataSource = new HikariDataSource(config);
                PostgresLockManager locks = PostgresLockManager.builder(dataSource)
                        .schemaMode(SchemaMode.VALIDATE)
                        .holderName("worker")
                        .build();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            System.out.println("ready");
            String line;
            while ((line = in.readLine()) != null && line.equals("go")) {
                counting.reset();
                try (Lease lease = locks.acquire(args[1], wait)) {
                    int statements = counting.statements();
                    Instant acquiredAt = locks.inspect(args[1]).orElseThrow().acquiredAt();
                    System.out.println(
                            "acquired " + ChronoUnit.MICROS.between(Instant.EPOCH, acquiredAt) + " " + statements);
                }
            }
        }
    }
}
