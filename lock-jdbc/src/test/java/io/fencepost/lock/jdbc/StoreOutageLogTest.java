package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.CloseAfterEach;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.jdbc.test.ProxiedPool;
import io.fencepost.lock.jdbc.test.TcpProxy;
import io.fencepost.lock.test.LogCapture;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A store outage in the log: one WARNING line when renewal and the notification listener lose the store, with the
 * cause and no stack trace, and one line each when they are back, however many retries fail in between.
 */
class StoreOutageLogTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    @RegisterExtension
    final CloseAfterEach closer = new CloseAfterEach();

    @RegisterExtension
    final LogCapture logs = new LogCapture("io.fencepost");

    @Test
    void anOutageIsOneWarningPerPartAndALineWhenItIsBack() throws Exception {
        ProxiedPool throughProxy = closer.add(ProxiedPool.failingFast(db));
        TcpProxy proxy = throughProxy.proxy();
        PostgresLockManager locks = closer.add(throughProxy.manager(Duration.ofMillis(500)));
        PostgresLockManager elsewhere = closer.add(PostgresLockManager.create(db.dataSource()));
        Lease held = locks.acquire("outage:held", LockOptions.of(Duration.ofSeconds(6)));
        // A wait for a busy key starts the manager's notification listener.
        Lease busy = elsewhere.acquire("outage:busy", LockOptions.of(Duration.ofSeconds(30)));
        assertThat(locks.tryAcquire(
                        "outage:busy",
                        LockOptions.builder().waitTime(Duration.ofMillis(300)).build()))
                .isEmpty();
        busy.release();

        proxy.retarget(deadPort());
        proxy.cut();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> failures("NotificationListener") >= 3 && failures("Renewer") >= 3);
        proxy.retarget(throughProxy.serverPort());
        await().atMost(Duration.ofSeconds(20))
                .until(() -> logs.rendered(Level.INFO).stream()
                                .anyMatch(line -> line.contains("notification listener reconnected after"))
                        && logs.rendered(Level.INFO).stream()
                                .anyMatch(line -> line.contains("renewal reaches the lock store again after")));

        assertThat(logs.rendered(Level.WARNING))
                .filteredOn(line -> line.contains("notification listener lost its connection"))
                .hasSize(1);
        assertThat(logs.rendered(Level.WARNING))
                .filteredOn(line -> line.contains("renewal cannot reach the lock store"))
                .hasSize(1)
                .allMatch(line -> line.contains("("), "names the cause");
        assertThat(logs.records())
                .filteredOn(record -> record.getLevel().intValue() >= Level.WARNING.intValue())
                .allMatch(record -> record.getThrown() == null, "no stack trace at WARNING");
        assertThat(held.isHeld()).as("the lease rode out the outage").isTrue();
        held.release();
    }

    /** How many failures of {@code part} went to the DEBUG log (each with its stack trace). */
    private long failures(String part) {
        return logs.records().stream()
                .filter(record -> record.getLoggerName().endsWith("." + part))
                .filter(record -> record.getLevel() == Level.FINE && record.getThrown() != null)
                .count();
    }

    private static int deadPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort(); // closed again: connections to it are refused
        }
    }
}
