package io.fencepost.lock.jdbc;

import io.fencepost.lock.spi.LeaseStore;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * One {@code LISTEN} connection per store, multiplexing every key that local waiters wait for: a release that
 * someone waits for sends {@code NOTIFY fencepost_<table>, '<key>'}, and this thread wakes that key's waiters.
 *
 * <p>Started by the first subscription, so a manager that never waits never opens it. After a dropped
 * connection it reconnects with backoff, and wakes every waiter so that none sleeps on a notification lost in
 * between; while it is down, subscriptions report that they do not deliver, and waiters poll.
 */
final class NotificationListener implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(NotificationListener.class.getName());

    private static final AtomicInteger THREADS = new AtomicInteger();

    /** How long one wait for notifications blocks; also how quickly close() is noticed. */
    private static final int POLL_MILLIS = 250;

    /** Silence after which the connection is checked with a query (a silent partition sends no error). */
    private static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(5);

    private static final long MAX_RECONNECT_MILLIS = 5_000;

    private final DataSource dataSource;

    private final String channel;

    private final int networkTimeoutMillis;

    private final Map<String, List<Runnable>> waiters = new ConcurrentHashMap<>();

    private final CountDownLatch firstConnect = new CountDownLatch(1);

    private volatile Thread thread;

    private volatile boolean connected;

    private volatile boolean closed;

    NotificationListener(DataSource dataSource, String channel, int networkTimeoutMillis) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.networkTimeoutMillis = networkTimeoutMillis;
    }

    /** Subscribes; the first call starts the listener and waits (briefly) until it listens. */
    LeaseStore.Subscription subscribe(String key, Runnable wakeUp) {
        waiters.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(wakeUp);
        startOnce();
        return new LeaseStore.Subscription() {
            @Override
            public boolean delivers() {
                return connected;
            }

            @Override
            public void close() {
                waiters.computeIfPresent(key, (k, list) -> {
                    list.remove(wakeUp);
                    return list.isEmpty() ? null : list;
                });
            }
        };
    }

    boolean isConnected() {
        return connected;
    }

    private void startOnce() {
        if (thread == null) {
            synchronized (this) { // no I/O inside: only the thread start
                if (thread == null && !closed) {
                    Thread listener = new Thread(this::run, "fencepost-listener-" + THREADS.incrementAndGet());
                    listener.setDaemon(true);
                    thread = listener;
                    listener.start();
                }
            }
        }
        try {
            firstConnect.await(networkTimeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        long backoff = 100;
        while (!closed) {
            try (Connection connection = dataSource.getConnection()) {
                try {
                    listen(connection);
                    backoff = 100;
                } catch (SQLException | RuntimeException e) {
                    revealBroken(connection);
                    throw e;
                }
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    return;
                }
                LOG.log(
                        Level.WARNING,
                        "the fencepost notification listener lost its connection ({0}); waiters poll"
                                + " until it reconnects",
                        e.toString());
            } finally {
                boolean wasConnected = connected;
                connected = false;
                firstConnect.countDown();
                if (wasConnected) {
                    wakeAll(); // a notification may have been lost while the connection was failing
                }
            }
            sleep(backoff);
            backoff = Math.min(MAX_RECONNECT_MILLIS, backoff * 2);
        }
    }

    private void listen(Connection connection) throws SQLException {
        connection.setAutoCommit(true);
        PGConnection pg = connection.unwrap(PGConnection.class);
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(Math.max(1, networkTimeoutMillis / 1000));
            statement.execute("LISTEN \"" + channel + "\"");
        }
        connected = true;
        firstConnect.countDown();
        wakeAll(); // whatever was released before we listened
        long lastHeard = System.nanoTime();
        while (!closed) {
            PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
            if (notifications != null && notifications.length > 0) {
                lastHeard = System.nanoTime();
                for (PGNotification notification : notifications) {
                    wake(notification.getParameter());
                }
            } else if (System.nanoTime() - lastHeard > CHECK_NANOS) {
                connection.setNetworkTimeout(Runnable::run, networkTimeoutMillis);
                try (Statement check = connection.createStatement()) {
                    check.execute("SELECT 1");
                }
                lastHeard = System.nanoTime();
            }
        }
    }

    /**
     * Notifications are read from the driver's own connection, past the pool's proxy, so a pool never sees that
     * read fail. One statement through the proxy lets it notice a broken connection and evict it, instead of
     * handing it to a lock statement.
     */
    private static void revealBroken(Connection connection) {
        try (Statement probe = connection.createStatement()) {
            probe.execute("SELECT 1");
        } catch (SQLException | RuntimeException expected) {
            // the pool has seen the failure now
        }
    }

    private void wake(String key) {
        for (Runnable wakeUp : waiters.getOrDefault(key, List.of())) {
            wakeUp.run();
        }
    }

    private void wakeAll() {
        waiters.values().forEach(list -> list.forEach(Runnable::run));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closed = true;
        Thread listener = thread;
        if (listener != null) {
            listener.interrupt();
            try {
                listener.join(TimeUnit.SECONDS.toMillis(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
