package io.fencepost.lock.jdbc.test;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;

/** Fixed-size HikariCP pools, for tests that count or fault the connections under a manager. */
public final class FixedPool {

    private FixedPool() {}

    /** A pool over {@code target} that keeps {@code size} connections open; the caller closes it. */
    public static HikariDataSource over(DataSource target, int size) {
        HikariConfig config = new HikariConfig();
        config.setDataSource(target);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        return new HikariDataSource(config);
    }
}
