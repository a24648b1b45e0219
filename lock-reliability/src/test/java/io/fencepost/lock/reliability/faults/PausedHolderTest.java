package io.fencepost.lock.reliability.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencepost.lock.FencingTokenRejectedException;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.JdbcFencingGuard;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.reliability.support.ChildJvm;
import io.fencepost.lock.reliability.support.Pools;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A holder pauses past its lease (a GC pause, a frozen VM), the key passes to another holder who writes, and the
 * paused holder wakes up and writes too: the fencing guard must refuse it. Once in this JVM (renewal and watchdog
 * stopped, the holder having checked its lease just before), once as a real process stopped with SIGSTOP.
 */
@Tag("full")
class PausedHolderTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private final JdbcFencingGuard guard = new JdbcFencingGuard();

    @BeforeEach
    void account() {
        PostgresLockManager.create(db.dataSource()).close();
        db.execute("DROP TABLE IF EXISTS account; CREATE TABLE account (id int PRIMARY KEY, balance int NOT NULL);"
                + " INSERT INTO account VALUES (1, 0); DELETE FROM distributed_lock_fence;");
    }

    @Test
    void aHolderFrozenBetweenItsCheckAndItsWriteHasTheLateWriteRejected() throws Exception {
        LockOptions options = LockOptions.of(Duration.ofMillis(800));
        PostgresLockManager paused =
                PostgresLockManager.builder(db.dataSource()).build();
        Lease stale = paused.acquire("paused:account", options);
        stale.checkHeld(); // the holder checks its lease, then freezes before it writes
        paused.close(); // frozen: no renewal, no watchdog

        Thread.sleep(1_200);
        try (PostgresLockManager other =
                        PostgresLockManager.builder(db.dataSource()).build();
                Lease fresh = other.acquire("paused:account", options)) {
            assertThat(fresh.fencingToken()).isGreaterThan(stale.fencingToken());
            write(fresh.fencingToken(), 200);
        }

        // No watchdog ran, yet the lease knows by the monotonic clock that its safe deadline passed: a holder that
        // checks right before writing is safe; one paused between its check and its write needs the guard.
        assertThat(stale.isHeld())
                .as("the frozen holder's lease is past its deadline")
                .isFalse();
        assertThatThrownBy(() -> write(stale.fencingToken(), 100)).isInstanceOf(FencingTokenRejectedException.class);
        assertThat(balance()).isEqualTo(200);
    }

    @Test
    void aProcessStoppedPastItsLeaseHasItsLateWriteRejected() throws Exception {
        try (ChildJvm child = ChildJvm.start(
                PausedHolderChild.class, ProcessBuilder.Redirect.DISCARD, db.jdbcUrl(), "paused:process", "800")) {
            String held = child.readLine();
            assertThat(held).startsWith("HELD ");
            long staleToken = Long.parseLong(held.substring(5));

            child.signal("STOP");
            Thread.sleep(1_500);
            try (PostgresLockManager other =
                            PostgresLockManager.builder(db.dataSource()).build();
                    Lease fresh = other.acquire("paused:process", LockOptions.of(Duration.ofSeconds(5)))) {
                assertThat(fresh.fencingToken()).isGreaterThan(staleToken);
                write(fresh.fencingToken(), 200);
            }
            child.signal("CONT");

            child.send("WRITE");
            String belief = child.readLine();
            String outcome = child.readLine();
            assertThat(belief).startsWith("HELD_AFTER_PAUSE ");
            assertThat(outcome).as("the stopped process's write").startsWith("REJECTED");
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(balance()).isEqualTo(200);
        }
    }

    private void write(long token, int balance) throws SQLException {
        try (Connection connection = db.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try {
                guard.check(connection, "account:1", token);
                try (PreparedStatement update =
                        connection.prepareStatement("UPDATE account SET balance = ? WHERE id = 1")) {
                    update.setInt(1, balance);
                    update.executeUpdate();
                }
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            }
        }
    }

    private int balance() {
        return (int) Pools.queryLong(db.jdbcUrl(), "SELECT balance FROM account WHERE id = 1", -1);
    }
}
