package com.example.orders;

import io.fencepost.lock.LockManager;
import io.fencepost.lock.integration.FencepostLockRegistry;
import java.time.Duration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/** Spring Integration's lock registry on Fencepost, and a leader initiator on it. */
@Configuration(proxyBeanMethods = false)
public class LockingConfiguration {

    @Bean
    FencepostLockRegistry lockRegistry(LockManager locks) {
        return new FencepostLockRegistry(locks, Duration.ofSeconds(10));
    }

    @Bean
    LockRegistryLeaderInitiator leaderInitiator(FencepostLockRegistry registry) {
        return new LockRegistryLeaderInitiator(registry);
    }
}
