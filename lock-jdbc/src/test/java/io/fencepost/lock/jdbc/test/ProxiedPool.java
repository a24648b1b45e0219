package io.fencepost.lock.jdbc.test;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.jdbc.PostgresLockManager;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * A HikariCP pool on a test database whose connections all pass a {@link TcpProxy} of their own, so that a test can
 * stall them, cut them or send new ones elsewhere. Closing it closes the pool, then the proxy.
 */
public final class ProxiedPool implements AutoCloseable {

    private final int serverPort;

    private final TcpProxy proxy;

    private final HikariDataSource pool;

    /** A pool on {@code db} through a new proxy, with the pool size and timeouts that {@code settings} sets. */
    public ProxiedPool(PostgresTestDatabase db, Consumer<HikariConfig> settings) throws IOException {
        URI uri = URI.create(db.jdbcUrl().substring("jdbc:".length()));
        serverPort = uri.getPort();
        proxy = new TcpProxy(uri.getHost(), serverPort);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.jdbcUrl().replaceFirst(":" + serverPort + "/", ":" + proxy.port() + "/"));
        settings.accept(config);
        try {
            pool = new HikariDataSource(config);
        } catch (RuntimeException e) {
            proxy.close();
            throw e;
        }
    }

    /**
     * A pool of three connections on {@code db} through a new proxy, which waits at most 500 ms for a connection: for
     * a lock manager that must notice an outage well within a lease.
     */
    public static ProxiedPool failingFast(PostgresTestDatabase db) throws IOException {
        return new ProxiedPool(db, config -> {
            config.setMaximumPoolSize(3);
            config.setConnectionTimeout(500);
        });
    }

    /** The pool, every connection of it through the proxy. */
    public HikariDataSource dataSource() {
        return pool;
    }

    /** A lock manager on the pool whose statements give up after {@code statementTimeout}; close it before the pool. */
    public PostgresLockManager manager(Duration statementTimeout) {
        return PostgresLockManager.builder(pool)
                .statementTimeout(statementTimeout)
                .build();
    }

    /** The proxy between the pool and the server. */
    public TcpProxy proxy() {
        return proxy;
    }

    /** The server's own port, where the proxy sends connections until it is retargeted. */
    public int serverPort() {
        return serverPort;
    }

    @Override
    public void close() {
        pool.close();
        proxy.close();
    }
}
