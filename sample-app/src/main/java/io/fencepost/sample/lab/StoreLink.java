package io.fencepost.sample.lab;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * One worker's connection to the lock store, which the lab can freeze (the worker's process is paused, so none
 * of its threads, renewal included, reaches the store) or cut (the store is down for everyone).
 */
final class StoreLink extends DelegatingDataSource {

    private final BooleanSupplier storeDown;

    private volatile long frozenUntilNanos;

    private volatile boolean cut;

    StoreLink(DataSource pool, BooleanSupplier storeDown) {
        super(pool);
        this.storeDown = storeDown;
    }

    /** Until then, every thread asking for a connection stands still, as in a stop-the-world pause. */
    void freezeUntil(long nanoTime) {
        frozenUntilNanos = nanoTime;
    }

    /** From now on this client never reaches the store again: its process has died. */
    void cut() {
        cut = true;
    }

    /** Whether the store is cut off now: no new connection is handed out. */
    boolean storeDown() {
        return storeDown.getAsBoolean();
    }

    @Override
    public Connection getConnection() throws SQLException {
        awaitThaw();
        if (cut) {
            throw new SQLException("this lock client's process is dead (the lab's killed holder)", "08006");
        }
        if (storeDown()) {
            throw new SQLException("lock store unreachable (the lab's simulated outage)", "08001");
        }
        return super.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLException("the lab's lock clients use the pool's own credentials", "08004");
    }

    private void awaitThaw() throws SQLException {
        long remaining;
        while ((remaining = frozenUntilNanos - System.nanoTime()) > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(remaining);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted while the worker was frozen", "08001", e);
            }
        }
    }
}
