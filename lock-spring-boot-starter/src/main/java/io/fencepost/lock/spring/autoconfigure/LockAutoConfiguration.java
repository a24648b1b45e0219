package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.LockManager;
import io.fencepost.lock.core.EngineBuilder;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.spi.LockListener;
import io.fencepost.lock.spring.aop.DistributedLockAdvisor;
import io.fencepost.lock.spring.transaction.TransactionFence;
import io.micrometer.observation.ObservationRegistry;
import javax.sql.DataSource;
import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.StringUtils;

/**
 * Auto-configuration of Fencepost: a {@link PostgresLockManager} on the application's {@code DataSource} (or the one
 * qualified {@link LockDataSource @LockDataSource}) and the {@code @DistributedLock} advisor, which observes its calls
 * in the application's {@link ObservationRegistry} when there is one.
 *
 * <p>With {@code fencepost.enabled=false} there is no lock manager, and the advisor makes annotated methods fail
 * closed: they never run unlocked.
 */
@AutoConfiguration(
        after = DataSourceAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
            "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration"
        })
@ConditionalOnClass({LockManager.class, PostgresLockManager.class, Advisor.class})
@EnableConfigurationProperties(LockProperties.class)
@Import({LockAutoConfiguration.AutoProxyRegistrar.class, LockPropertiesValidator.class})
@ImportRuntimeHints(FencepostRuntimeHints.class)
public final class LockAutoConfiguration {

    private static final String ORDER_PROPERTY = "fencepost.aop.order";

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "fencepost", name = "enabled", matchIfMissing = true)
    static class LockingEnabledConfiguration {

        // Static, with everything resolved lazily: advisors are created early, while post-processors are set up.
        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        @ConditionalOnMissingBean
        static DistributedLockAdvisor distributedLockAdvisor(
                ObjectProvider<LockManager> lockManager,
                ObjectProvider<LockProperties> properties,
                ObjectProvider<ObservationRegistry> observationRegistry,
                ObjectProvider<TransactionFence> transactionFence,
                Environment environment) {
            DistributedLockAdvisor advisor = new DistributedLockAdvisor(
                    lockManager::getIfAvailable, () -> properties.getObject().toDefaultOptions());
            advisor.setOrder(order(environment));
            advisor.setObservationRegistry(observationRegistry::getIfUnique);
            advisor.setTransactionFence(transactionFence::getIfUnique);
            return advisor;
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnBean(DataSource.class)
        @ConditionalOnMissingBean(LockManager.class)
        static class PostgresLockManagerConfiguration {

            @Bean(destroyMethod = "close")
            @DependsOnDatabaseInitialization
            PostgresLockManager lockManager(
                    ObjectProvider<DataSource> dataSource,
                    @LockDataSource ObjectProvider<DataSource> lockDataSource,
                    LockProperties properties,
                    ObjectProvider<LockListener> listeners,
                    Environment environment) {
                properties.toDefaultOptions();
                String applicationName = environment.getProperty("spring.application.name");
                LockProperties.Jdbc jdbc = properties.getJdbc();
                PostgresLockManager.Builder builder = PostgresLockManager.builder(
                                LockDataSources.resolve(dataSource, lockDataSource))
                        .tableName(jdbc.getTableName())
                        .schemaMode(jdbc.getInitializeSchema())
                        .statementTimeout(jdbc.getStatementTimeout())
                        .applicationName(applicationName)
                        .allowOtherLockTables(jdbc.isAllowOtherLockTables())
                        .queueSessions(jdbc.getQueueSessions())
                        .sweep(jdbc.getSweep().isEnabled())
                        .sweepInterval(jdbc.getSweep().getInterval())
                        .sweepBatchSize(jdbc.getSweep().getBatchSize())
                        .sweepFenceRowAge(jdbc.getSweep().getFenceRowAge())
                        .listener(CompositeLockListener.of(
                                listeners.orderedStream().toList()));
                if (StringUtils.hasText(properties.getHolderName())) {
                    builder.holderName(properties.getHolderName());
                } else if (StringUtils.hasText(applicationName)) {
                    builder.holderName(EngineBuilder.holderNameOf(applicationName));
                }
                return builder.build();
            }

            /** Binds {@code fenceTransaction} methods' transactions to their leases, on the lock manager's table. */
            @Bean
            @ConditionalOnMissingBean
            TransactionFence transactionFence(
                    ObjectProvider<DataSource> dataSource,
                    @LockDataSource ObjectProvider<DataSource> lockDataSource,
                    PostgresLockManager lockManager) {
                return new TransactionFence(
                        LockDataSources.resolve(dataSource, lockDataSource), lockManager.tableName());
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "fencepost", name = "enabled", havingValue = "false")
    static class LockingDisabledConfiguration {

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        @ConditionalOnMissingBean
        static DistributedLockAdvisor distributedLockAdvisor(
                ObjectProvider<LockProperties> properties, Environment environment) {
            DisabledLockManager disabled = new DisabledLockManager();
            DistributedLockAdvisor advisor = new DistributedLockAdvisor(
                    () -> disabled, () -> properties.getObject().toDefaultOptions());
            advisor.setOrder(order(environment));
            return advisor;
        }
    }

    /** Read from the environment, not {@link LockProperties}, so that creating the advisor creates nothing else. */
    private static int order(Environment environment) {
        return Binder.get(environment).bind(ORDER_PROPERTY, Integer.class).orElse(DistributedLockAdvisor.DEFAULT_ORDER);
    }

    /** Makes sure some auto-proxy creator applies the advisor, also in applications without AOP auto-configuration. */
    static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
