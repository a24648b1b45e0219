package io.fencepost.lock.reliability.faults;

import io.fencepost.lock.FencingTokenRejectedException;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.JdbcFencingGuard;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaMode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The holder JVM of {@link PausedHolderTest}: takes the lease, says so, and when told to, writes the account
 * through the fencing guard whatever it believes about its lease, as a process would that was paused between
 * checking its lease and writing.
 *
 * <p>Arguments: jdbcUrl key leaseMillis.
 */
public final class PausedHolderChild {

    private PausedHolderChild() {}

    public static void main(String[] args) throws Exception {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(args[0]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (PostgresLockManager locks = PostgresLockManager.builder(dataSource)
                .schemaMode(SchemaMode.VALIDATE)
                .holderName("paused-child")
                .build()) {
            Lease lease = locks.acquire(args[1], LockOptions.of(Duration.ofMillis(Long.parseLong(args[2]))));
            System.out.println("HELD " + lease.fencingToken());
            System.out.flush();
            in.readLine(); // "WRITE", sent after the test stopped and resumed this process
            System.out.println("HELD_AFTER_PAUSE " + lease.isHeld());
            try (Connection connection = DriverManager.getConnection(args[0])) {
                connection.setAutoCommit(false);
                try {
                    new JdbcFencingGuard().check(connection, "account:1", lease.fencingToken());
                    try (PreparedStatement write =
                            connection.prepareStatement("UPDATE account SET balance = 100 WHERE id = 1")) {
                        write.executeUpdate();
                    }
                    connection.commit();
                    System.out.println("ACCEPTED");
                } catch (FencingTokenRejectedException e) {
                    connection.rollback();
                    System.out.println("REJECTED " + e.getMessage());
                }
            }
            System.out.flush();
        }
    }
}
