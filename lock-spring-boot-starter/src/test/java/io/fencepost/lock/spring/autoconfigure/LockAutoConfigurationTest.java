package io.fencepost.lock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.OnLocked;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.jdbc.LockSchemaException;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.CountingDataSource;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.spring.aop.DistributedLockAdvisor;
import io.fencepost.lock.spring.test.LockContextRunners;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.transaction.support.TransactionTemplate;

/** {@link LockAutoConfiguration} on a real PostgreSQL: what it creates, when it backs off, how it fails. */
class LockAutoConfigurationTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private final ApplicationContextRunner contextRunner =
            LockContextRunners.onDatabase(db).withPropertyValues("spring.datasource.hikari.maximum-pool-size=4");

    @Test
    void createsAPostgresLockManagerAndTheAdvisorWhenThereIsADataSource() {
        contextRunner.run(context -> {
            assertThat(context).hasSingleBean(PostgresLockManager.class);
            assertThat(context).hasSingleBean(DistributedLockAdvisor.class);
            assertThat(context).hasSingleBean(LockProperties.class);
            PostgresLockManager locks = context.getBean(PostgresLockManager.class);
            assertThat(locks.tableName()).isEqualTo("distributed_lock");
            try (Lease lease = locks.acquire("auto:1", LockOptions.defaults())) {
                assertThat(locks.inspect("auto:1"))
                        .hasValueSatisfying(
                                info -> assertThat(info.fencingToken()).isEqualTo(lease.fencingToken()));
            }
        });
    }

    @Test
    void appliesTheJdbcAndHolderProperties() {
        contextRunner
                .withPropertyValues(
                        "fencepost.jdbc.table-name=billing_lock",
                        "fencepost.jdbc.allow-other-lock-tables=true",
                        "fencepost.holder-name=billing@test")
                .run(context -> {
                    PostgresLockManager locks = context.getBean(PostgresLockManager.class);
                    assertThat(locks.tableName()).isEqualTo("billing_lock");
                    assertThat(locks.holderName()).isEqualTo("billing@test");
                    Lease lease = locks.acquire("props:1", LockOptions.defaults());
                    assertThat(locks.inspect("props:1"))
                            .hasValueSatisfying(
                                    info -> assertThat(info.holder()).isEqualTo("billing@test"));
                    lease.release();
                    assertThat(new JdbcTemplate(db.dataSource())
                                    .queryForObject("SELECT to_regclass('billing_lock') IS NOT NULL", Boolean.class))
                            .isTrue();
                });
    }

    @Test
    void theDefaultHolderNameTellsTwoInstancesOnOneHostApart() {
        String pid = ":" + ProcessHandle.current().pid();
        contextRunner
                .withPropertyValues("spring.application.name=billing")
                .run(context -> assertThat(
                                context.getBean(PostgresLockManager.class).holderName())
                        .startsWith("billing@")
                        .endsWith(pid));
        contextRunner.run(
                context -> assertThat(context.getBean(PostgresLockManager.class).holderName())
                        .startsWith(System.getProperty("user.name") + "@")
                        .endsWith(pid));
    }

    @Test
    void anInvalidDefaultFailsTheStartUpNamingTheProperty() {
        contextRunner.withPropertyValues("fencepost.lease-time=0s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .isInstanceOf(InvalidLockPropertyException.class)
                    .hasMessage("Invalid value '0s' for fencepost.lease-time: the lease time must be positive");
        });
    }

    @Test
    void backsOffWhenTheApplicationDefinesALockManager() {
        contextRunner
                .withBean(
                        "myLocks",
                        LockManager.class,
                        () -> DefaultLockManager.builder(new InMemoryLeaseStore())
                                .build())
                .run(context -> {
                    assertThat(context).hasSingleBean(LockManager.class);
                    assertThat(context).doesNotHaveBean(PostgresLockManager.class);
                    assertThat(context).hasBean("myLocks");
                    assertThat(context).hasSingleBean(DistributedLockAdvisor.class);
                });
    }

    @Test
    void backsOffWhenLockJdbcIsMissing() {
        contextRunner
                .withClassLoader(new FilteredClassLoader(PostgresLockManager.class))
                .run(context -> {
                    assertThat(context).doesNotHaveBean(LockManager.class);
                    assertThat(context).doesNotHaveBean(DistributedLockAdvisor.class);
                    assertThat(context).doesNotHaveBean(LockProperties.class);
                });
    }

    @Test
    void backsOffWhenSpringAopIsMissing() {
        contextRunner
                .withClassLoader(new FilteredClassLoader(org.springframework.aop.Advisor.class))
                .run(context -> {
                    assertThat(context).doesNotHaveBean(LockManager.class);
                    assertThat(context).doesNotHaveBean(DistributedLockAdvisor.class);
                });
    }

    @Test
    void createsNoLockManagerWithoutADataSource() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(LockManager.class);
                });
    }

    @Test
    void refusesToStartWhenAnnotatedMethodsHaveNoLockManager() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class))
                .withBean(ReportService.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = FailureAnalysisSupport.analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .isEqualTo("@DistributedLock is used on [ReportService.nightly(), ReportService.refresh()]"
                                    + " but the application has no LockManager to lock them with. Fencepost creates"
                                    + " one on the application's DataSource, and there is no DataSource bean.");
                    assertThat(analysis.getAction())
                            .startsWith("Configure a DataSource for PostgreSQL (for example spring.datasource.url)")
                            .contains("@LockDataSource", "define a LockManager bean");
                });
    }

    @Test
    void whenDisabledThereIsNoLockManagerAndAnnotatedMethodsNeverRun() {
        contextRunner
                .withPropertyValues("fencepost.enabled=false", "fencepost.jdbc.table-name=disabled_lock")
                .withBean(ReportService.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(LockManager.class);
                    ReportService reports = context.getBean(ReportService.class);
                    assertThatExceptionOfType(LockNotAcquiredException.class)
                            .isThrownBy(reports::nightly)
                            .withMessageContaining("fencepost.enabled=false");
                    assertThat(reports.refresh()).isZero();
                    assertThat(reports.runs()).isZero();
                    assertThat(new JdbcTemplate(db.dataSource())
                                    .queryForObject("SELECT to_regclass('disabled_lock') IS NULL", Boolean.class))
                            .as("nothing touched the database")
                            .isTrue();
                });
    }

    @Test
    void usesTheDataSourceQualifiedForLocks() {
        contextRunner.withUserConfiguration(TwoDataSources.class).run(context -> {
            CountingDataSource application = context.getBean("applicationDataSource", CountingDataSource.class);
            CountingDataSource locks = context.getBean("lockDataSource", CountingDataSource.class);
            application.reset();
            locks.reset();
            context.getBean(LockManager.class)
                    .acquire("qualified:1", LockOptions.defaults())
                    .release();
            assertThat(locks.statements()).isPositive();
            assertThat(application.statements()).isZero();
        });
    }

    @Test
    void lockStatementsNeverJoinTheCallersTransactionThroughATransactionAwareProxy() {
        contextRunner.withUserConfiguration(TransactionAwareDataSource.class).run(context -> {
            LockManager locks = context.getBean(LockManager.class);
            TransactionTemplate transaction =
                    new TransactionTemplate(context.getBean(DataSourceTransactionManager.class));
            JdbcTemplate observer = new JdbcTemplate(db.adminDataSource());
            Lease lease = transaction.execute(status -> {
                Lease acquired = locks.acquire("tx:1", LockOptions.defaults());
                assertThat(observer.queryForObject(
                                "SELECT count(*) FROM distributed_lock WHERE lock_key = 'tx:1'", Integer.class))
                        .as("the grant is committed while the caller's transaction is still open")
                        .isOne();
                status.setRollbackOnly();
                return acquired;
            });
            assertThat(locks.inspect("tx:1"))
                    .as("the caller's rollback did not undo the grant")
                    .isPresent();
            assertThat(lease.release()).isTrue();
        });
    }

    @Test
    void validateModeWithoutTheTableFailsTheStartUpWithAnExplanation() {
        contextRunner
                .withPropertyValues(
                        "fencepost.jdbc.initialize-schema=validate",
                        "fencepost.jdbc.table-name=missing_lock",
                        "fencepost.jdbc.allow-other-lock-tables=true")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOf(LockSchemaException.class);
                    FailureAnalysis analysis = FailureAnalysisSupport.analyze(
                            context.getStartupFailure(),
                            new MockEnvironment().withProperty("fencepost.jdbc.initialize-schema", "validate"));
                    assertThat(analysis.getDescription())
                            .startsWith(
                                    "Fencepost's lock table cannot be used (fencepost.jdbc.initialize-schema=validate):"
                                            + " fencepost's lock table 'missing_lock' is not ready: the table and its sequence"
                                            + " 'missing_lock_fence_seq' do not exist");
                    assertThat(analysis.getAction())
                            .startsWith(
                                    "Create the lock table 'missing_lock' and its sequence 'missing_lock_fence_seq':")
                            .contains(
                                    "fencepost.jdbc.initialize-schema=create",
                                    "io/fencepost/lock/jdbc/schema-postgresql.sql",
                                    "search_path",
                                    "fencepost.jdbc.table-name");
                });
    }

    @Test
    void aMalformedKeyExpressionFailsTheStartUpWithAnExplanation() {
        contextRunner.withBean(MalformedKeyService.class).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = FailureAnalysisSupport.analyze(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .startsWith("@DistributedLock on MalformedKeyService.settle(long): key expression"
                            + " ''invoice:' + #id +' could not be parsed: ");
            assertThat(analysis.getAction())
                    .startsWith("Fix the @DistributedLock annotation on MalformedKeyService.settle(long).")
                    .contains("quote literals", "30s, 500ms, 1m or PT30S");
        });
    }

    @Test
    void validateModeStartsAfterTheApplicationsFlywayMigrationCreatedTheTable() {
        contextRunner
                .withConfiguration(AutoConfigurations.of(FlywayAutoConfiguration.class))
                .withPropertyValues(
                        "spring.flyway.locations=classpath:db/app-migration",
                        // The test database already holds other tests' tables.
                        "spring.flyway.baseline-on-migrate=true",
                        "spring.flyway.baseline-version=0",
                        "fencepost.jdbc.table-name=app_managed_lock",
                        "fencepost.jdbc.allow-other-lock-tables=true",
                        "fencepost.jdbc.initialize-schema=validate")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBeanFactory()
                                    .getBeanDefinition("lockManager")
                                    .getDependsOn())
                            .contains("flywayInitializer");
                    PostgresLockManager locks = context.getBean(PostgresLockManager.class);
                    assertThat(locks.tableName()).isEqualTo("app_managed_lock");
                    locks.acquire("flyway:1", LockOptions.of(Duration.ofSeconds(5)))
                            .release();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoDataSources {

        @Bean
        @Primary
        CountingDataSource applicationDataSource() {
            return new CountingDataSource(db.dataSource());
        }

        @Bean
        @LockDataSource
        CountingDataSource lockDataSource() {
            return new CountingDataSource(db.unpooledDataSource());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TransactionAwareDataSource {

        @Bean
        DataSource dataSource() {
            return new TransactionAwareDataSourceProxy(db.dataSource());
        }

        @Bean
        DataSourceTransactionManager transactionManager() {
            return new DataSourceTransactionManager(db.dataSource());
        }
    }

    static class ReportService {

        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @DistributedLock(key = "'nightly-report'")
        public void nightly() {
            runs.incrementAndGet();
        }

        @DistributedLock(key = "'refresh'", onLocked = OnLocked.SKIP)
        public int refresh() {
            return runs.incrementAndGet();
        }
    }

    static class MalformedKeyService {

        @DistributedLock(key = "'invoice:' + #id +")
        public void settle(long id) {}
    }
}
