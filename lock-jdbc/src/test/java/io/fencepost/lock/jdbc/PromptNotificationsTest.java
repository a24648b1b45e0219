package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.SocketFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The listener's connection hands over a notification as soon as it is read. The driver's extra wait shows on the
 * socket: to ask whether more is pending it sets a 1 ms read timeout and reads; the sockets here count those
 * timeouts, so the test needs no clock.
 */
class PromptNotificationsTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    private static final String CHANNEL = "prompt_notifications_test";

    /** Read timeouts of 1 ms set on the sockets of {@link CountingSockets}, since the last reset. */
    static final AtomicInteger WAITS_FOR_MORE = new AtomicInteger();

    @Test
    void aNotificationIsHandedOverWithoutWaitingForMore() throws Exception {
        try (Connection listener = listening();
                Connection sender = db.dataSource().getConnection()) {
            Optional<Runnable> prompt = PromptNotifications.apply(listener);
            assertThat(prompt)
                    .as("this driver lets notifications through at once")
                    .isPresent();

            WAITS_FOR_MORE.set(0);
            notify(sender, "first");
            assertThat(receive(listener, 1)).containsExactly("first");
            assertThat(WAITS_FOR_MORE).as("1 ms reads while receiving").hasValue(0);

            prompt.get().run();
            WAITS_FOR_MORE.set(0);
            notify(sender, "after undo");
            assertThat(receive(listener, 1)).containsExactly("after undo");
            assertThat(WAITS_FOR_MORE)
                    .as("the connection goes back to its pool as the driver made it")
                    .hasPositiveValue();
        }
    }

    @Test
    void notificationsThatArriveTogetherAreAllReceivedInOrder() throws Exception {
        try (Connection listener = listening();
                Connection sender = db.dataSource().getConnection()) {
            assertThat(PromptNotifications.apply(listener)).isPresent();
            try (Statement statement = sender.createStatement()) {
                statement.execute("SELECT pg_notify('" + CHANNEL + "', 'a'), pg_notify('" + CHANNEL + "', 'b'),"
                        + " pg_notify('" + CHANNEL + "', 'c')");
            }
            assertThat(receive(listener, 3)).containsExactly("a", "b", "c");
        }
    }

    @Test
    void theStoresListenerReceivesWithoutWaitingForMore() throws Exception {
        PGSimpleDataSource counted = countingDataSource();
        try (NotificationListener listener = new NotificationListener(counted, CHANNEL, CHANNEL + "_0000", 10_000);
                Connection sender = db.dataSource().getConnection()) {
            CountDownLatch woken = new CountDownLatch(1);
            listener.subscribe("some key", woken::countDown);
            await().atMost(Duration.ofSeconds(10)).until(listener::isConnected);

            WAITS_FOR_MORE.set(0);
            notify(sender, "some key");
            assertThat(woken.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(WAITS_FOR_MORE).as("1 ms reads while receiving").hasValue(0);
        }
    }

    /**
     * The reason for {@link PromptNotifications}: should a driver version stop waiting by itself, this fails, and the
     * class can go.
     */
    @Test
    void withoutItTheDriverWaitsForMoreAfterEachNotification() throws Exception {
        try (Connection listener = listening();
                Connection sender = db.dataSource().getConnection()) {
            WAITS_FOR_MORE.set(0);
            notify(sender, "plain");
            assertThat(receive(listener, 1)).containsExactly("plain");
            assertThat(WAITS_FOR_MORE).hasPositiveValue();
        }
    }

    private static PGSimpleDataSource countingDataSource() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(db.jdbcUrl());
        dataSource.setSocketFactory(CountingSockets.class.getName());
        return dataSource;
    }

    private static Connection listening() throws SQLException {
        Connection connection = countingDataSource().getConnection();
        try (Statement statement = connection.createStatement()) {
            statement.execute("LISTEN " + CHANNEL);
        }
        return connection;
    }

    private static void notify(Connection sender, String payload) throws SQLException {
        try (var statement = sender.prepareStatement("SELECT pg_notify(?, ?)")) {
            statement.setString(1, CHANNEL);
            statement.setString(2, payload);
            statement.execute();
        }
    }

    /** Blocks (up to 10 s per call) until {@code count} notifications came; their payloads. */
    private static List<String> receive(Connection listener, int count) throws SQLException {
        PGConnection pg = listener.unwrap(PGConnection.class);
        List<String> payloads = new ArrayList<>();
        for (int call = 0; call < 10 && payloads.size() < count; call++) {
            PGNotification[] notifications = pg.getNotifications(10_000);
            if (notifications != null) {
                for (PGNotification notification : notifications) {
                    payloads.add(notification.getParameter());
                }
            }
        }
        return payloads;
    }

    /** The driver's socket factory here ({@code socketFactory} property): sockets that count 1 ms read timeouts. */
    public static final class CountingSockets extends SocketFactory {

        @Override
        public Socket createSocket() {
            return new Socket() {
                @Override
                public synchronized void setSoTimeout(int timeout) throws SocketException {
                    if (timeout == 1) {
                        WAITS_FOR_MORE.incrementAndGet();
                    }
                    super.setSoTimeout(timeout);
                }
            };
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            throw new UnsupportedOperationException("the driver connects the socket it created");
        }

        @Override
        public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
            throw new UnsupportedOperationException("the driver connects the socket it created");
        }

        @Override
        public Socket createSocket(InetAddress host, int port) throws IOException {
            throw new UnsupportedOperationException("the driver connects the socket it created");
        }

        @Override
        public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
                throws IOException {
            throw new UnsupportedOperationException("the driver connects the socket it created");
        }
    }
}
