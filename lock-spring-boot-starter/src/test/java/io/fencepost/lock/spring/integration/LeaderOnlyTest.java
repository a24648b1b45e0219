package io.fencepost.lock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockContext;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spring.autoconfigure.LeaderElectionAutoConfiguration;
import io.fencepost.lock.spring.leader.LeaderElections;
import io.fencepost.lock.spring.leader.LeaderOnly;
import io.fencepost.lock.spring.leader.LeadershipEvent;
import io.fencepost.lock.spring.leader.LeadershipGrantedEvent;
import io.fencepost.lock.spring.test.LockContextRunners;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;

/**
 * Two instances of an application on one database, both candidates of the group {@code reports}: one leads, its
 * {@code @LeaderOnly} method runs inside the leadership lease, the other's returns without running; leadership moves
 * on a yield and when the leader's context stops, each change published as events.
 */
class LeaderOnlyTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private final ApplicationContextRunner contextRunner = LockContextRunners.onDatabase(
                    db, LeaderElectionAutoConfiguration.class)
            .withPropertyValues(
                    "spring.datasource.hikari.maximum-pool-size=4",
                    // long enough that only a release, never an expiry, can explain a quick change of leader
                    "fencepost.leader.groups.reports.lease-time=30s")
            .withBean(ReportJob.class);

    @Test
    void oneInstanceLeadsRunsTheJobAndHandsOverOnYieldAndOnStop() {
        contextRunner.run(a -> {
            assertThat(a).hasNotFailed();
            contextRunner.run(b -> {
                assertThat(b).hasNotFailed();
                await().atMost(Duration.ofSeconds(20)).until(() -> leads(a) != leads(b));
                AssertableApplicationContext leader = leads(a) ? a : b;
                AssertableApplicationContext follower = leader == a ? b : a;

                job(a).tick();
                job(b).tick();

                assertThat(job(leader).terms()).containsExactly(term(leader));
                assertThat(job(follower).terms()).isEmpty();
                assertThat(job(leader).events()).containsExactly("granted " + term(leader));

                long firstTerm = term(leader);
                leader.getBean(LeaderElections.class).yieldLeadership("reports");
                await().atMost(Duration.ofSeconds(5)).until(() -> leads(follower));
                assertThat(job(leader).events()).containsExactly("granted " + firstTerm, "revoked " + firstTerm);
                assertThat(term(follower)).isGreaterThan(firstTerm);

                long secondTerm = term(follower);
                ReportJob stopped = job(follower);
                follower.close();
                assertThat(stopped.events()).endsWith("revoked " + secondTerm);
                // back after its yield pause, the first instance leads again, long before the 30 s lease ran out
                await().atMost(Duration.ofSeconds(10)).until(() -> leads(leader));
                assertThat(term(leader)).isGreaterThan(secondTerm);
            });
        });
    }

    @Test
    void aLeaderOnlyMethodOfAnUnconfiguredGroupFailsTheStartUpNamingTheGroups() {
        contextRunner
                .withBean(UnknownGroupJob.class)
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("@LeaderOnly on UnknownGroupJob.tick() names group 'billing'")
                        .hasMessageContaining("configured groups are [reports]"));
    }

    @Test
    void aLeaderOnlyMethodThatReturnsAValueFailsTheStartUp() {
        contextRunner
                .withBean(ValueJob.class)
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("@LeaderOnly on ValueJob.count() must return void"));
    }

    private static boolean leads(AssertableApplicationContext context) {
        return context.getBean(LeaderElections.class).isLeader("reports");
    }

    private static long term(AssertableApplicationContext context) {
        return context.getBean(LeaderElections.class)
                .leadership("reports")
                .orElseThrow()
                .fencingToken();
    }

    private static ReportJob job(AssertableApplicationContext context) {
        return context.getBean(ReportJob.class);
    }

    static class ReportJob {

        private final List<Long> terms = new CopyOnWriteArrayList<>();

        private final List<String> events = new CopyOnWriteArrayList<>();

        // accessors, not fields: the bean in the context is a proxy
        public List<Long> terms() {
            return terms;
        }

        public List<String> events() {
            return events;
        }

        @LeaderOnly("reports")
        public void tick() {
            terms.add(LockContext.current().map(Lease::fencingToken).orElseThrow());
        }

        /** Both kinds, through their common type, in the order they were published. */
        @EventListener
        public void on(LeadershipEvent event) {
            events.add((event instanceof LeadershipGrantedEvent ? "granted " : "revoked ") + event.term());
        }
    }

    static class UnknownGroupJob {

        @LeaderOnly("billing")
        public void tick() {}
    }

    static class ValueJob {

        @LeaderOnly("reports")
        public int count() {
            return 1;
        }
    }
}
