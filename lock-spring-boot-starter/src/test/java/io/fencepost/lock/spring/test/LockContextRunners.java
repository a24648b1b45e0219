package io.fencepost.lock.spring.test;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spring.autoconfigure.LockAutoConfiguration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

/** Application contexts with the starter's lock auto-configuration on a test database. */
public final class LockContextRunners {

    private LockContextRunners() {}

    /**
     * Spring Boot's {@code DataSource} on {@code db} and {@link LockAutoConfiguration}, with {@code autoConfigurations}
     * besides. Create it once the database has started (in a test instance's field, for instance).
     */
    public static ApplicationContextRunner onDatabase(PostgresTestDatabase db, Class<?>... autoConfigurations) {
        List<Class<?>> classes =
                new ArrayList<>(List.of(DataSourceAutoConfiguration.class, LockAutoConfiguration.class));
        classes.addAll(List.of(autoConfigurations));
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(classes.toArray(Class<?>[]::new)))
                .withPropertyValues("spring.datasource.url=" + db.jdbcUrl());
    }

    /**
     * As {@link #onDatabase}, with JDBC transactions, {@code JdbcTemplate} and AOP auto-configured, for beans whose
     * {@code @DistributedLock} methods are also {@code @Transactional}.
     */
    public static ApplicationContextRunner transactionalOnDatabase(PostgresTestDatabase db) {
        return onDatabase(
                db,
                DataSourceTransactionManagerAutoConfiguration.class,
                JdbcTemplateAutoConfiguration.class,
                TransactionAutoConfiguration.class,
                AopAutoConfiguration.class);
    }
}
