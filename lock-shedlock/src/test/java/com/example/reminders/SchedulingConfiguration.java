package com.example.reminders;

import io.fencepost.lock.LockManager;
import io.fencepost.lock.shedlock.FencepostLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/** Scheduling with ShedLock on Fencepost: ShedLock's switches as before, and the lock provider bean. */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "10m")
public class SchedulingConfiguration {

    @Bean
    FencepostLockProvider lockProvider(LockManager locks) {
        return new FencepostLockProvider(locks);
    }
}
