package io.fencepost.lock.reliability.faults;

import io.fencepost.lock.jdbc.JdbcLeaseGuard;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;

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
        HolderChild.hold(args, "frozen-child", (lease, jdbcUrl, commands) -> {
            try (lease;
                    Connection connection = DriverManager.getConnection(jdbcUrl)) {
                connection.setAutoCommit(false);
                try (PreparedStatement write = connection.prepareStatement("INSERT INTO frozen_write VALUES (?)")) {
                    write.setLong(1, lease.fencingToken());
                    write.executeUpdate();
                }
                new JdbcLeaseGuard().holdUntilCommit(connection, lease);
                System.out.println("CHECKED " + lease.fencingToken());
                System.out.flush();
                commands.readLine(); // "COMMIT", sent after the test stopped and resumed this process
                try {
                    connection.commit();
                    System.out.println("COMMITTED");
                } catch (SQLException e) {
                    System.out.println("COMMIT_FAILED " + e.getSQLState());
                }
                System.out.flush();
            }
        });
    }
}
