package io.fencepost.lock.spring.testing;

import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.jdbc.PostgresLeaseStore;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.spi.LockListener;
import io.fencepost.lock.spring.autoconfigure.LockDataSource;
import io.fencepost.lock.spring.autoconfigure.LockProperties;
import io.fencepost.lock.spring.transaction.TransactionFence;
import io.fencepost.lock.testing.TestLocks;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/** The beans {@link AutoConfigureTestLocks} adds: the test locks and, as the application's lock manager, theirs. */
final class TestLocksConfiguration {

    private TestLocksConfiguration() {}

    /** Test locks on a fresh in-memory store. */
    @Configuration(proxyBeanMethods = false)
    static class InMemory {

        @Bean(destroyMethod = "close")
        TestLocks testLocks(ObjectProvider<LockListener> listeners, Environment environment) {
            return builder(listeners, environment).build();
        }

        // Closed by the test locks, which own it. Primary, and not named lockManager, so that it also wins over a lock
        // manager bean the application declares itself.
        @Bean(destroyMethod = "")
        @Primary
        DefaultLockManager testLockManager(TestLocks testLocks) {
            return testLocks.manager();
        }
    }

    /** Test locks on the application's PostgreSQL lock table, and the transaction fence on that table. */
    @Configuration(proxyBeanMethods = false)
    static class Postgres {

        /**
         * The schema as the application's own lock manager would create or check it (after the application's own
         * database initialization, as the starter's lock manager), then a store on it.
         */
        @Bean(destroyMethod = "close")
        @DependsOnDatabaseInitialization
        PostgresLeaseStore testLockStore(
                ObjectProvider<DataSource> dataSource,
                @LockDataSource ObjectProvider<DataSource> lockDataSource,
                LockProperties properties,
                Environment environment) {
            DataSource locks = lockDataSource.getIfAvailable(dataSource::getObject);
            LockProperties.Jdbc jdbc = properties.getJdbc();
            PostgresLockManager.builder(locks)
                    .tableName(jdbc.getTableName())
                    .schemaMode(jdbc.getInitializeSchema())
                    .statementTimeout(jdbc.getStatementTimeout())
                    .applicationName(environment.getProperty("spring.application.name"))
                    .allowOtherLockTables(jdbc.isAllowOtherLockTables())
                    .build()
                    .close();
            return new PostgresLeaseStore(
                    locks, jdbc.getTableName(), jdbc.getStatementTimeout(), jdbc.getQueueSessions());
        }

        @Bean(destroyMethod = "close")
        TestLocks testLocks(
                PostgresLeaseStore testLockStore, ObjectProvider<LockListener> listeners, Environment environment) {
            return builder(listeners, environment).store(testLockStore).build();
        }

        @Bean(destroyMethod = "")
        @Primary
        DefaultLockManager testLockManager(TestLocks testLocks) {
            return testLocks.manager();
        }

        @Bean
        TransactionFence transactionFence(
                ObjectProvider<DataSource> dataSource,
                @LockDataSource ObjectProvider<DataSource> lockDataSource,
                LockProperties properties) {
            return new TransactionFence(
                    lockDataSource.getIfAvailable(dataSource::getObject),
                    properties.getJdbc().getTableName());
        }
    }

    /**
     * The application's listeners (metrics) see the test's manager as they would the real one; the holder name is the
     * configured one, else the application's name, else {@value TestLocks#DEFAULT_HOLDER}.
     */
    private static TestLocks.Builder builder(ObjectProvider<LockListener> listeners, Environment environment) {
        TestLocks.Builder builder = TestLocks.builder();
        listeners.orderedStream().forEach(builder::listener);
        String holder = environment.getProperty("fencepost.holder-name");
        if (!StringUtils.hasText(holder)) {
            holder = environment.getProperty("spring.application.name");
        }
        if (StringUtils.hasText(holder)) {
            builder.holderName(holder);
        }
        return builder;
    }
}
