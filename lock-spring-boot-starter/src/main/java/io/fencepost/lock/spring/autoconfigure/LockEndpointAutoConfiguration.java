package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.LockManager;
import io.fencepost.lock.spring.actuate.endpoint.ForceReleasePolicy;
import io.fencepost.lock.spring.actuate.endpoint.LocksEndpoint;
import io.fencepost.lock.spring.actuate.endpoint.LocksEndpointWebExtension;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link LocksEndpoint locks} Actuator endpoint, for the application's {@link LockManager}.
 * Its forced release stays refused unless {@value LocksEndpoint#FORCE_RELEASE_PROPERTY} is true.
 */
@AutoConfiguration(after = LockAutoConfiguration.class)
@ConditionalOnClass({LockManager.class, Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnAvailableEndpoint(LocksEndpoint.class)
@EnableConfigurationProperties(LockProperties.class)
public final class LockEndpointAutoConfiguration {

    @Bean
    @ConditionalOnBean(LockManager.class)
    @ConditionalOnMissingBean
    LocksEndpoint locksEndpoint(LockManager lockManager, LockProperties properties) {
        LockProperties.ForceRelease forceRelease = properties.getEndpoint().getForceRelease();
        return new LocksEndpoint(
                lockManager,
                new ForceReleasePolicy(
                        forceRelease.isEnabled(), forceRelease.getRole(), forceRelease.isAllowAnonymous()));
    }

    @Bean
    @ConditionalOnBean(LocksEndpoint.class)
    @ConditionalOnMissingBean
    LocksEndpointWebExtension locksEndpointWebExtension(LocksEndpoint locksEndpoint) {
        return new LocksEndpointWebExtension(locksEndpoint);
    }
}
