package io.fencepost.lock.reliability.faults;

import io.fencepost.lock.FencingTokenRejectedException;
import io.fencepost.lock.jdbc.JdbcFencingGuard;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;

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
        HolderChild.hold(args, "paused-child", (lease, jdbcUrl, commands) -> {
            System.out.println("HELD " + lease.fencingToken());
            System.out.flush();
            commands.readLine(); // "WRITE", sent after the test stopped and resumed this process
            System.out.println("HELD_AFTER_PAUSE " + lease.isHeld());
            try (Connection connection = DriverManager.getConnection(jdbcUrl)) {
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
        });
    }
}
