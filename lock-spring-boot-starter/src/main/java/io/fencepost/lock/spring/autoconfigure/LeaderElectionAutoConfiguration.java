package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.LockManager;
import io.fencepost.lock.spring.leader.LeaderElections;
import io.fencepost.lock.spring.leader.LeaderOnlyAdvisor;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * Leader election for the groups under {@code fencepost.leader.groups}, on the application's {@link LockManager},
 * and the advisor behind {@code @LeaderOnly}.
 */
@AutoConfiguration(after = LockAutoConfiguration.class)
@ConditionalOnProperty(prefix = "fencepost", name = "enabled", matchIfMissing = true)
public final class LeaderElectionAutoConfiguration {

    @Bean
    @ConditionalOnBean(LockManager.class)
    @ConditionalOnMissingBean
    LeaderElections leaderElections(
            LockManager lockManager, LockProperties properties, ApplicationEventPublisher events) {
        Map<String, Duration> groups = new LinkedHashMap<>();
        properties.getLeader().getGroups().forEach((group, settings) -> groups.put(group, settings.getLeaseTime()));
        return new LeaderElections(lockManager, groups, events);
    }

    // Static and lazy, like the lock advisor: advisors are created early, while post-processors are set up.
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static LeaderOnlyAdvisor leaderOnlyAdvisor(ObjectProvider<LeaderElections> elections) {
        return new LeaderOnlyAdvisor(() -> {
            LeaderElections available = elections.getIfAvailable();
            if (available == null) {
                throw new IllegalStateException("@LeaderOnly needs leader election, which needs a LockManager bean"
                        + " (a DataSource for the PostgreSQL store) and fencepost.enabled=true");
            }
            return available;
        });
    }
}
