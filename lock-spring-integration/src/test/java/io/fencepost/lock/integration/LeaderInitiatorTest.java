package io.fencepost.lock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration's {@code LockRegistryLeaderInitiator} over the registry, in two application contexts with a lock
 * manager each, as two instances of an application would run it.
 */
class LeaderInitiatorTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase(20);

    static final Duration LEASE_TIME = Duration.ofSeconds(4);

    /** Every grant, in order: which instance and its term (the fencing token of its lease). */
    static final Queue<Grant> grants = new ConcurrentLinkedQueue<>();

    record Grant(String instance, long term) {}

    private final List<AnnotationConfigApplicationContext> contexts = new java.util.ArrayList<>();

    @AfterEach
    void closeContexts() {
        contexts.forEach(AnnotationConfigApplicationContext::close);
    }

    @Test
    void oneLeaderAtATimeAndTheOtherTakesOverWithinTheLeaseTimeWhenTheLeaderCloses() {
        String role = "leader-" + UUID.randomUUID();
        AnnotationConfigApplicationContext first = start("first", role);
        AnnotationConfigApplicationContext second = start("second", role);

        await().atMost(Duration.ofSeconds(10)).until(() -> leaders(first, second) == 1);
        // Several heartbeats later, still exactly one.
        await().pollDelay(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> leaders(first, second) == 1);
        AnnotationConfigApplicationContext leader = isLeader(first) ? first : second;
        AnnotationConfigApplicationContext follower = leader == first ? second : first;
        long term = grants.stream().mapToLong(Grant::term).max().orElseThrow();

        long closed = System.nanoTime();
        leader.close();
        await().atMost(LEASE_TIME.plusSeconds(1)).until(() -> isLeader(follower));

        Duration takeover = Duration.ofNanos(System.nanoTime() - closed);
        assertThat(takeover).isLessThanOrEqualTo(LEASE_TIME.plusSeconds(1));
        // The closing leader unlocked, which frees the key at once: the follower did not wait for the lease to expire.
        assertThat(takeover).isLessThan(LEASE_TIME.dividedBy(2));
        Grant last = grants.stream().reduce((a, b) -> b).orElseThrow();
        assertThat(last.instance()).isEqualTo(follower.getId());
        assertThat(last.term()).as("the new leader's term").isGreaterThan(term);
        assertThat(grants.stream().map(Grant::term)).isSorted().doesNotHaveDuplicates();
    }

    private static long leaders(AnnotationConfigApplicationContext... contexts) {
        return Stream.of(contexts).filter(LeaderInitiatorTest::isLeader).count();
    }

    private static boolean isLeader(AnnotationConfigApplicationContext context) {
        return context.isActive()
                && context.getBean(LockRegistryLeaderInitiator.class)
                        .getContext()
                        .isLeader();
    }

    private AnnotationConfigApplicationContext start(String instance, String role) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.setId(instance);
        // The test's pool outlives the instances: closing one must not close it.
        context.registerBean(DataSource.class, db::dataSource, definition -> definition.setDestroyMethodName(""));
        context.registerBean("role", String.class, () -> role);
        context.register(Instance.class);
        context.refresh();
        contexts.add(context);
        return context;
    }

    @Configuration(proxyBeanMethods = false)
    static class Instance {

        @Bean(destroyMethod = "close")
        PostgresLockManager lockManager(DataSource dataSource) {
            return PostgresLockManager.create(dataSource);
        }

        @Bean
        FencepostLockRegistry lockRegistry(PostgresLockManager locks) {
            return new FencepostLockRegistry(locks, LEASE_TIME);
        }

        @Bean
        LockRegistryLeaderInitiator leaderInitiator(
                FencepostLockRegistry registry, String role, org.springframework.context.ApplicationContext context) {
            DefaultCandidate candidate = new DefaultCandidate(context.getId(), role) {
                @Override
                public void onGranted(Context ctx) {
                    super.onGranted(ctx);
                    long term = registry.currentLease(role).orElseThrow().fencingToken();
                    grants.add(new Grant(context.getId(), term));
                }
            };
            LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
            initiator.setHeartBeatMillis(200);
            initiator.setBusyWaitMillis(50);
            return initiator;
        }
    }
}
