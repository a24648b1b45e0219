package io.fencepost.lock.benchmarks.clients;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import javax.sql.DataSource;

/** Not a lock: one {@code SELECT 1} through the pool, the floor under every cycle on PostgreSQL. */
public final class SelectOneClient implements LockClient {

    private static final Held NOTHING = () -> {};

    private final DataSource dataSource;

    public SelectOneClient(ClientContext context) {
        this.dataSource = context.dataSource();
    }

    @Override
    public Held acquire(String key, Duration wait) throws Exception {
        return tryAcquire(key);
    }

    @Override
    public Held tryAcquire(String key) throws Exception {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement("SELECT 1");
                ResultSet rows = statement.executeQuery()) {
            rows.next();
        }
        return NOTHING;
    }

    @Override
    public void close() {}
}
