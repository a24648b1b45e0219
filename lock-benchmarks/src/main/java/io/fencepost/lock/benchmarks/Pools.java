package io.fencepost.lock.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** The one way every JDBC client of the harness gets its connections: a HikariCP pool with the same settings. */
public final class Pools {

    /** Enough for 16 threads of one JVM each holding an advisory-lock connection, and a few more. */
    public static final int MAX_SIZE = 20;

    private Pools() {}

    public static HikariDataSource open(String jdbcUrl, String user, String name, int maxSize) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPoolName(name);
        config.setMaximumPoolSize(maxSize);
        config.setMinimumIdle(Math.min(4, maxSize));
        // The server's view of "who is connected" (used to wait for backends to flush their statistics).
        config.addDataSourceProperty("ApplicationName", name);
        return new HikariDataSource(config);
    }
}
