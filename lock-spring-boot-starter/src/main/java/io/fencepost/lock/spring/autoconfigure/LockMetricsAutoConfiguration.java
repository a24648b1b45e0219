package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.spi.LockListener;
import io.fencepost.lock.spring.metrics.MicrometerLockListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of Fencepost's Micrometer meters: a {@link MicrometerLockListener} on the application's
 * {@link MeterRegistry}, which the lock manager then tells of every lock event (it takes every {@link LockListener}
 * bean).
 */
@AutoConfiguration(
        before = LockAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
        })
@ConditionalOnClass({MeterRegistry.class, LockListener.class})
@ConditionalOnBean(MeterRegistry.class)
public final class LockMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    MicrometerLockListener micrometerLockListener(MeterRegistry meterRegistry) {
        return new MicrometerLockListener(meterRegistry);
    }
}
