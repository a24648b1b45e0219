package io.fencepost.lock.jdbc;

import io.fencepost.lock.internal.OutageLog;
import io.fencepost.lock.spi.LeaseStore;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * One {@code LISTEN} connection per store, multiplexing every key that local waiters wait for: a release that
 * someone waits for sends {@code NOTIFY fencepost_<table>, '<key>'}, and this thread wakes that key's waiters. A
 * release that hands the key to a registered waiter sends the grant on the waiter's store's own channel instead
 * ({@code fencepost_<table>_<tag>}, see {@link WaiterTag}), which this connection listens on too: the message reaches
 * that store's listener alone, not every process that waits for some key of the table.
 *
 * <p>Started by the first subscription, so a manager that never waits never opens it. After a dropped
 * connection it reconnects with backoff, and wakes every waiter so that none sleeps on a notification lost in
 * between; while it is down, subscriptions report that they do not deliver, and waiters poll.
 *
 * <p>A connection that answers queries may still never see a notification: behind a connection pooler in
 * transaction mode (PgBouncer's {@code pool_mode = transaction}) the {@code LISTEN} ran on a server connection that
 * went back to the pooler's pool. So the listener probes delivery itself: right after {@code LISTEN}, and then after
 * {@value #CHECK_SECONDS} seconds without a notification (every {@value #CHECK_SECONDS} seconds while undelivered), it
 * sends a notification of its own on another connection of the pool and expects it back within
 * {@value #PROBE_TIMEOUT_MILLIS} ms. While probes do not come back, subscriptions report that they do not deliver,
 * so waiters poll with the short backoff rather than wait for the push fallback.
 */
final class NotificationListener implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(NotificationListener.class.getName());

    private static final AtomicInteger THREADS = new AtomicInteger();

    /** How long one wait for notifications blocks; also how quickly close() is noticed. */
    private static final int POLL_MILLIS = 250;

    private static final int CHECK_SECONDS = 5;

    /**
     * Silence after which the connection is checked with a query (a silent partition sends no error) and delivery
     * with a probe; also how often an undelivered listener probes again.
     */
    private static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(CHECK_SECONDS);

    /** How long a probe may take to come back before notifications count as not delivered. */
    private static final int PROBE_TIMEOUT_MILLIS = 2_000;

    /** Marks the listener's own probes; a key of the same text would only get a spurious wake-up. */
    private static final String PROBE_PREFIX = "fencepost-probe:";

    /** Marks a release's message to the registered waiter it handed the lease to (see WaiterRelayStatements). */
    static final String HAND_OVER_PREFIX = "fencepost-grant:";

    private static final long MAX_RECONNECT_MILLIS = 5_000;

    private final DataSource dataSource;

    private final String channel;

    /** This store's own channel, on which releases tell its registered waiters that they hold the key. */
    private final String waiterChannel;

    private final int networkTimeoutMillis;

    private final Map<String, List<Runnable>> waiters = new ConcurrentHashMap<>();

    /** Registered waiters, by registration id: each is told the rest of the message that hands it a lease. */
    private final Map<String, Consumer<String>> registrations = new ConcurrentHashMap<>();

    private final CountDownLatch firstConnect = new CountDownLatch(1);

    /** One line when the connection is lost, one when it is back, however many reconnects fail in between. */
    private final OutageLog outage = new OutageLog(
            LOG,
            "the fencepost notification listener lost its connection ({0}); waiters poll until it reconnects",
            "the fencepost notification listener reconnected after {0}; waiters are woken by notifications again");

    private volatile Thread thread;

    private volatile boolean connected;

    /** Whether notifications reach this connection, as the last probe found; assumed until a probe is lost. */
    private volatile boolean delivering = true;

    /** The payload of the probe in flight, or null. Only the listener thread touches the probe fields. */
    private String probe;

    private long probeSentNanos;

    private long lastProbeNanos;

    private volatile boolean closed;

    NotificationListener(DataSource dataSource, String channel, String waiterChannel, int networkTimeoutMillis) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.waiterChannel = waiterChannel;
        this.networkTimeoutMillis = networkTimeoutMillis;
    }

    /** Subscribes; the first call starts the listener and waits (briefly) until it listens. */
    LeaseStore.Subscription subscribe(String key, Runnable wakeUp) {
        waiters.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(wakeUp);
        startOnce();
        return subscription(() -> waiters.computeIfPresent(key, (k, list) -> {
            list.remove(wakeUp);
            return list.isEmpty() ? null : list;
        }));
    }

    /**
     * Subscribes a registered waiter to the message of the release that hands it the lease; the first call starts the
     * listener, like {@link #subscribe}.
     */
    LeaseStore.Subscription onHandOver(String registrationId, Consumer<String> message) {
        registrations.put(registrationId, message);
        startOnce();
        return subscription(() -> registrations.remove(registrationId, message));
    }

    /** A subscription that delivers while the listener listens, and that {@code unsubscribe} ends. */
    private LeaseStore.Subscription subscription(Runnable unsubscribe) {
        return new LeaseStore.Subscription() {
            @Override
            public boolean delivers() {
                return connected && delivering;
            }

            @Override
            public void close() {
                unsubscribe.run();
            }
        };
    }

    boolean isConnected() {
        return connected;
    }

    /** How waiters are woken now. */
    WakeUps wakeUps() {
        if (thread == null) {
            return WakeUps.NOT_STARTED;
        }
        if (!connected) {
            return WakeUps.POLLING_RECONNECTING;
        }
        return delivering ? WakeUps.PUSH : WakeUps.POLLING_UNDELIVERED;
    }

    /** How waiters of a store are woken. */
    enum WakeUps {
        /** Nobody waited yet, so the listener was never started. */
        NOT_STARTED,
        /** By notification: the listener hears its probes. */
        PUSH,
        /** By polling: the listener lost its connection and reconnects. */
        POLLING_RECONNECTING,
        /** By polling: the listener is connected, but its probes do not come back (a pooler in transaction mode?). */
        POLLING_UNDELIVERED
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
                outage.failed(e);
            } finally {
                boolean wasConnected = connected;
                connected = false;
                delivering = true; // to be probed again on the next connection
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
        Optional<Runnable> undo = PromptNotifications.apply(connection);
        try {
            listen(connection, connection.unwrap(PGConnection.class));
        } finally {
            undo.ifPresent(Runnable::run);
        }
    }

    private void listen(Connection connection, PGConnection pg) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(Math.max(1, networkTimeoutMillis / 1000));
            statement.execute("LISTEN \"" + channel + "\"");
            statement.execute("LISTEN \"" + waiterChannel + "\"");
        }
        connected = true;
        outage.succeeded();
        firstConnect.countDown();
        wakeAll(); // whatever was released before we listened
        probe = null;
        sendProbe();
        long lastHeard = System.nanoTime();
        while (!closed) {
            PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
            long now = System.nanoTime();
            if (notifications != null && notifications.length > 0) {
                lastHeard = now;
                for (PGNotification notification : notifications) {
                    String payload = notification.getParameter();
                    if (probe != null && probe.equals(payload)) {
                        probeReturned();
                    } else if (payload.startsWith(HAND_OVER_PREFIX)) {
                        handedOver(payload.substring(HAND_OVER_PREFIX.length()));
                    } else if (!payload.startsWith(PROBE_PREFIX)) {
                        wake(payload);
                    }
                }
            }
            if (probe != null && now - probeSentNanos > TimeUnit.MILLISECONDS.toNanos(PROBE_TIMEOUT_MILLIS)) {
                probeLost();
            }
            boolean silent = now - lastHeard > CHECK_NANOS;
            if (silent) {
                connection.setNetworkTimeout(Runnable::run, networkTimeoutMillis);
                try (Statement check = connection.createStatement()) {
                    check.execute("SELECT 1");
                }
                lastHeard = System.nanoTime();
            }
            if (probe == null && (silent || (!delivering && now - lastProbeNanos > CHECK_NANOS))) {
                sendProbe();
            }
        }
        // Back to the pool: a pooled session that still listened would queue every later notification unread.
        try (Statement unlisten = connection.createStatement()) {
            unlisten.setQueryTimeout(Math.max(1, networkTimeoutMillis / 1000));
            unlisten.execute("UNLISTEN \"" + channel + "\"");
            unlisten.execute("UNLISTEN \"" + waiterChannel + "\"");
        }
    }

    /**
     * Sends a notification to this listener's channel on another connection of the pool, as a release in another
     * process would. A failure to send proves nothing about delivery: it is logged and the next check tries again.
     */
    private void sendProbe() {
        String payload = PROBE_PREFIX + UUID.randomUUID();
        try (Connection sender = dataSource.getConnection();
                PreparedStatement notify = sender.prepareStatement("SELECT pg_notify(?, ?)")) {
            if (!sender.getAutoCommit()) {
                sender.setAutoCommit(true);
            }
            notify.setQueryTimeout(Math.max(1, networkTimeoutMillis / 1000));
            notify.setString(1, channel);
            notify.setString(2, payload);
            notify.execute();
            probe = payload;
            probeSentNanos = System.nanoTime();
        } catch (SQLException | RuntimeException e) {
            // With a throwable, System.Logger does not format the message: it is built here.
            LOG.log(
                    Level.DEBUG,
                    () -> "the fencepost notification listener could not send its delivery probe (" + e + ")",
                    e);
        }
        lastProbeNanos = System.nanoTime();
    }

    private void probeReturned() {
        probe = null;
        if (!delivering) {
            delivering = true;
            LOG.log(
                    Level.INFO,
                    "the fencepost notification listener on channel {0} hears notifications again; waiters are"
                            + " woken by push",
                    channel);
        }
    }

    private void probeLost() {
        probe = null;
        if (delivering) {
            delivering = false;
            LOG.log(
                    Level.WARNING,
                    "notifications sent on channel {0} do not reach fencepost''s LISTEN connection within {1} ms,"
                            + " though the connection answers queries: a connection pooler in transaction mode"
                            + " (such as PgBouncer with pool_mode = transaction) between the application and"
                            + " PostgreSQL? Waiters poll with short backoff until notifications arrive; for push"
                            + " wake-ups, connect fencepost directly or through session pooling",
                    channel,
                    String.valueOf(PROBE_TIMEOUT_MILLIS));
            wakeAll(); // waiters sleeping on the push fallback start polling now
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

    /** {@code message} is the registration id, a colon, and what the waiter is told. */
    private void handedOver(String message) {
        int end = message.indexOf(':');
        Consumer<String> waiter = end < 0 ? null : registrations.get(message.substring(0, end));
        if (waiter != null) {
            waiter.accept(message.substring(end + 1));
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
