package io.fencepost.lock.jdbc;

import java.lang.System.Logger.Level;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.postgresql.PGConnection;

/**
 * Lets the PostgreSQL JDBC driver hand over a notification as soon as it has read it, on the listener's connection.
 *
 * <p>After reading a notification, {@code PGConnection.getNotifications(timeout)} asks whether more messages are
 * pending; when nothing more is buffered, the driver answers by a read that waits 1 ms on the socket, on every call
 * (its once-a-second throttle for that check is only armed by an outcome that a timed-out read never has). A
 * release that hands the lease to a waiter in another process thus reached that waiter about a millisecond late,
 * which on a busy key was most of a hand-off: measured with 8 processes on one key, 1.2 ms between the release's
 * return and the next holder's start, 0.07 ms without the wait. Setting the throttle's deadline to "never" makes the
 * check answer from the buffer alone: the listener still blocks for the first message and still takes every message
 * already received, but no longer waits for ones that have not come.
 *
 * <p>The deadline is a private field of the driver, so it is set by reflection; a driver without it (another
 * version) keeps its behaviour, which costs only that millisecond, and is logged once. The connection goes back to
 * the pool with the field as it was.
 */
final class PromptNotifications {

    private static final System.Logger LOG = System.getLogger(PromptNotifications.class.getName());

    private static final String EXECUTOR_BASE = "org.postgresql.core.QueryExecutorBase";

    private static final String STREAM = "org.postgresql.core.PGStream";

    private static final String DEADLINE = "nextStreamAvailableCheckTime";

    private static final AtomicBoolean REPORTED = new AtomicBoolean();

    private PromptNotifications() {}

    /**
     * Makes {@code connection}'s driver return notifications without waiting for more; returns what puts the driver's
     * state back as it was, or empty when this driver cannot (then nothing was changed).
     */
    static Optional<Runnable> apply(Connection connection) {
        try {
            PGConnection pg = connection.unwrap(PGConnection.class);
            Object executor = pg.getClass().getMethod("getQueryExecutor").invoke(pg);
            Field streamField = Class.forName(
                            EXECUTOR_BASE, false, pg.getClass().getClassLoader())
                    .getDeclaredField("pgStream");
            streamField.setAccessible(true);
            Object stream = streamField.get(executor);
            Field deadline =
                    Class.forName(STREAM, false, pg.getClass().getClassLoader()).getDeclaredField(DEADLINE);
            deadline.setAccessible(true);
            long before = deadline.getLong(stream);
            deadline.setLong(stream, Long.MAX_VALUE);
            return Optional.of(() -> {
                try {
                    deadline.setLong(stream, before);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("the field was made accessible above", e);
                }
            });
        } catch (ReflectiveOperationException | SQLException | RuntimeException e) {
            if (REPORTED.compareAndSet(false, true)) {
                LOG.log(
                        Level.INFO,
                        "this PostgreSQL JDBC driver waits about 1 ms after each notification for more; waiters in"
                                + " other processes are woken that much later ({0})",
                        e.toString());
            }
            return Optional.empty();
        }
    }
}
