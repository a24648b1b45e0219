package io.fencepost.lock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.spring.actuate.endpoint.LocksEndpoint;
import io.fencepost.lock.spring.actuate.endpoint.LocksEndpointWebExtension;
import io.fencepost.lock.spring.actuate.health.LockStoreHealthIndicator;
import io.fencepost.lock.spring.metrics.MicrometerLockListener;
import io.fencepost.lock.spring.test.LockContextRunners;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/**
 * {@link LockMetricsAutoConfiguration}, {@link LockEndpointAutoConfiguration} and
 * {@link LockHealthContributorAutoConfiguration}: what each adds, and that the starter works on without Micrometer or
 * without Actuator.
 */
class ObservabilityAutoConfigurationTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private final ApplicationContextRunner contextRunner = LockContextRunners.onDatabase(
                    db,
                    LockMetricsAutoConfiguration.class,
                    LockEndpointAutoConfiguration.class,
                    LockHealthContributorAutoConfiguration.class)
            .withPropertyValues(
                    "spring.datasource.hikari.maximum-pool-size=4",
                    "management.endpoints.web.exposure.include=locks,health");

    @Test
    void addsTheMeterListenerWhenThereIsAMeterRegistry() {
        contextRunner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasSingleBean(MicrometerLockListener.class);
            context.getBean(LockManager.class)
                    .acquire("auto:metrics", LockOptions.builder().name("auto").build())
                    .release();
            assertThat(context.getBean(MeterRegistry.class)
                            .get("fencepost.lock.acquire")
                            .tags("name", "auto", "result", "acquired")
                            .timer()
                            .count())
                    .isOne();
        });
    }

    @Test
    void addsNoMeterListenerWithoutAMeterRegistry() {
        contextRunner.run(context -> assertThat(context).doesNotHaveBean(MicrometerLockListener.class));
    }

    @Test
    void worksWithoutMicrometer() {
        importingRunner()
                .withClassLoader(new FilteredClassLoader("io.micrometer.core"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(MicrometerLockListener.class);
                    assertThat(context).hasSingleBean(LocksEndpoint.class);
                    context.getBean(LockManager.class)
                            .acquire("auto:no-micrometer", LockOptions.defaults())
                            .release();
                });
    }

    @Test
    void addsTheEndpointAndItsWebExtensionWhenExposed() {
        contextRunner.run(context -> {
            assertThat(context).hasSingleBean(LocksEndpoint.class);
            assertThat(context).hasSingleBean(LocksEndpointWebExtension.class);
            assertThat(context.getBean(LocksEndpoint.class).isForceReleaseEnabled())
                    .isFalse();
        });
    }

    @Test
    void enablesForcedReleaseOnlyThroughItsProperty() {
        contextRunner
                .withPropertyValues("fencepost.endpoint.force-release.enabled=true")
                .run(context -> assertThat(context.getBean(LocksEndpoint.class).isForceReleaseEnabled())
                        .isTrue());
    }

    @Test
    void theEndpointRefusesAForcedReleaseOutsideHttpTooNamingTheProperty() {
        contextRunner.run(context -> assertThatIllegalStateException()
                .isThrownBy(() -> context.getBean(LocksEndpoint.class).forceRelease(SecurityContext.NONE, "k:1"))
                .withMessageContaining("fencepost.endpoint.force-release.enabled=true"));
    }

    @Test
    void addsNoEndpointWhenItIsNotExposed() {
        contextRunner
                .withPropertyValues("management.endpoints.web.exposure.include=health")
                .run(context -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
    }

    @Test
    void addsNoEndpointWithoutALockManager() {
        contextRunner
                .withPropertyValues("fencepost.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
    }

    @Test
    void theEndpointServesALockManagerOfTheApplicationsOwn() {
        contextRunner
                .withBean(
                        LockManager.class,
                        () -> DefaultLockManager.builder(new InMemoryLeaseStore())
                                .build())
                .run(context -> {
                    assertThat(context).hasSingleBean(LocksEndpoint.class);
                    assertThat(context).doesNotHaveBean(LockStoreHealthIndicator.class);
                });
    }

    @Test
    void addsTheLocksHealthIndicatorForThePostgresLockManager() {
        contextRunner.withPropertyValues("fencepost.jdbc.statement-timeout=2s").run(context -> {
            assertThat(context).hasSingleBean(LockStoreHealthIndicator.class);
            assertThat(context).hasBean("locksHealthIndicator");
            HealthIndicator indicator = context.getBean("locksHealthIndicator", HealthIndicator.class);
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
            assertThat(indicator.health().getDetails())
                    .containsEntry(
                            "table", context.getBean(PostgresLockManager.class).tableName());
        });
    }

    @Test
    void theHealthIndicatorCanBeTurnedOff() {
        contextRunner
                .withPropertyValues("management.health.locks.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LockStoreHealthIndicator.class));
    }

    @Test
    void worksWithoutActuator() {
        importingRunner()
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withClassLoader(
                        new FilteredClassLoader("org.springframework.boot.actuate", "org.springframework.boot.health"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(LocksEndpoint.class);
                    assertThat(context).doesNotHaveBean(LockStoreHealthIndicator.class);
                    assertThat(context).hasSingleBean(MicrometerLockListener.class);
                    context.getBean(LockManager.class)
                            .acquire("auto:no-actuator", LockOptions.of(Duration.ofSeconds(5)))
                            .release();
                });
    }

    /**
     * A runner that imports the auto-configurations as an application does: without a library's jars, the
     * configurations that need it are filtered out before their conditions (that library's classes) are even loaded.
     */
    private static ApplicationContextRunner importingRunner() {
        return new ApplicationContextRunner()
                .withUserConfiguration(ImportedAutoConfigurations.class)
                .withPropertyValues(
                        "spring.datasource.url=" + db.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size=4",
                        "management.endpoints.web.exposure.include=locks,health");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        LockAutoConfiguration.class,
        LockMetricsAutoConfiguration.class,
        LockEndpointAutoConfiguration.class,
        LockHealthContributorAutoConfiguration.class
    })
    static class ImportedAutoConfigurations {}
}
