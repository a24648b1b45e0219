package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.jdbc.LockStoreHealth;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.spring.actuate.health.LockStoreHealthIndicator;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code locks} health indicator ({@link LockStoreHealthIndicator}) for the
 * {@link PostgresLockManager}: on the same {@code DataSource} and table, its probe bounded by
 * {@code fencepost.jdbc.statement-timeout}, answering at once from the manager's lock calls while they cannot reach
 * the database. Turned off with {@code management.health.locks.enabled=false}.
 */
@AutoConfiguration(after = LockAutoConfiguration.class)
@ConditionalOnClass({PostgresLockManager.class, HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnBean({PostgresLockManager.class, DataSource.class})
@ConditionalOnEnabledHealthIndicator("locks")
@EnableConfigurationProperties(LockProperties.class)
public final class LockHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "locksHealthIndicator")
    LockStoreHealthIndicator locksHealthIndicator(
            PostgresLockManager lockManager,
            ObjectProvider<DataSource> dataSource,
            @LockDataSource ObjectProvider<DataSource> lockDataSource,
            LockProperties properties) {
        return new LockStoreHealthIndicator(new LockStoreHealth(
                        LockDataSources.resolve(dataSource, lockDataSource),
                        lockManager.tableName(),
                        properties.getJdbc().getStatementTimeout())
                .withLockCallsOf(lockManager)
                .withWakeUpsOf(lockManager)
                .withOtherLockTablesOf(lockManager));
    }
}
