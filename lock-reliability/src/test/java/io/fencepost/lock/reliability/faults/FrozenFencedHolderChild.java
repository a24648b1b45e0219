package io.fencepost.lock.reliability.faults;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.JdbcLeaseGuard;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaMode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The holder JVM of {@link FrozenFencedHolderTest}: takes the lease (renewed), writes in a transaction, binds the
 * transaction to the lease and says so; when told to, commits, as a process would that froze between the check and
 * its commit.
 *
 * <p>Arguments: jdbcUrl key leaseMillis.
 */
public final class FrozenFencedHolderChild {

    private FrozenFencedHolderChild() {}

    public static void main(String[] args) throws Exception {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(args[0]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (PostgresLockManager locks = PostgresLockManager.builder(dataSource)
                        .schemaMode(SchemaMode.VALIDATE)
                        .holderName("frozen-child")
                        .build();
                Lease lease = locks.acquire(args[1], LockOptions.of(Duration.ofMillis(Long.parseLong(args[2]))));
                Connection connection = DriverManager.getConnection(args[0])) {
            connection.setAutoCommit(false);
            try (PreparedStatement write = connection.prepareStatement("INSERT INTO frozen_write VALUES (?)")) {
                write.setLong(1, lease.fencingToken());
                write.executeUpdate();
            }
            new JdbcLeaseGuard().holdUntilCommit(connection, lease);
            System.out.println("CHECKED " + lease.fencingToken());
            System.out.flush();
            in.readLine(); // "COMMIT", sent after the test stopped and resumed this process
            try {
                connection.commit();
                System.out.println("COMMITTED");
            } catch (SQLException e) {
                System.out.println("COMMIT_FAILED " + e.getSQLState());
            }
            System.out.flush();
        }
    }
}
