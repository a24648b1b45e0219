package io.fencepost.lock.contract;

import static io.fencepost.lock.contract.EngineUnderTest.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.LeaderElection;
import io.fencepost.lock.LeadershipListener;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link LeaderElection} on a store, with candidates in separate managers (clients): one leader at a
 * time, terms increasing, a yield or close hands over at once, a lost lease is revoked, and bad groups are refused.
 */
public interface LeaderElectionContract extends EngineUnderTest {

    /** What the candidates of one group were told, in the order it happened across all of them. */
    final class Journal {
        final List<String> entries = new CopyOnWriteArrayList<>();

        final AtomicInteger leaders = new AtomicInteger();

        final AtomicInteger mostLeaders = new AtomicInteger();

        final List<Long> terms = new CopyOnWriteArrayList<>();

        final AtomicInteger candidates = new AtomicInteger();

        LeadershipListener listenerFor(String candidate) {
            return new LeadershipListener() {
                @Override
                public void granted(Lease leadership) {
                    mostLeaders.accumulateAndGet(leaders.incrementAndGet(), Math::max);
                    terms.add(leadership.fencingToken());
                    entries.add("granted " + candidate + " " + leadership.fencingToken());
                }

                @Override
                public void revoked(Lease leadership) {
                    leaders.decrementAndGet();
                    entries.add("revoked " + candidate + " " + leadership.fencingToken());
                }
            };
        }
    }

    /** Candidates of one fresh group, one per manager, started; closed after the test with their managers. */
    private List<LeaderElection> candidates(Journal journal, int count, Duration leaseTime) {
        return candidates(journal, count, leaseTime, key());
    }

    private List<LeaderElection> candidates(Journal journal, int count, Duration leaseTime, String group) {
        List<LeaderElection> candidates = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            LockManager locks = manager();
            LeaderElection election = LeaderElection.builder(locks, group)
                    .leaseTime(leaseTime)
                    .listener(journal.listenerFor("c" + journal.candidates.incrementAndGet()))
                    .build();
            closeAfterTest(election);
            election.start();
            candidates.add(election);
        }
        return candidates;
    }

    /** Closes {@code election} after the test, before the managers. */
    void closeAfterTest(AutoCloseable election);

    private static LeaderElection leader(List<LeaderElection> candidates) {
        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        candidates.stream().filter(LeaderElection::isLeader).count() == 1);
        return candidates.stream().filter(LeaderElection::isLeader).findFirst().orElseThrow();
    }

    @Test
    default void oneOfThreeCandidatesLeadsAndItsTermIsItsLeasesFencingToken() {
        Journal journal = new Journal();
        List<LeaderElection> candidates = candidates(journal, 3, Duration.ofSeconds(30));

        LeaderElection leader = leader(candidates);

        Lease term = leader.leadership().orElseThrow();
        assertThat(journal.terms).containsExactly(term.fencingToken());
        assertThat(candidates).filteredOn(c -> c != leader).noneMatch(LeaderElection::isLeader);
        assertThat(candidates)
                .filteredOn(c -> c != leader)
                .allMatch(c -> c.leadership().isEmpty());
    }

    @Test
    default void aYieldHandsLeadershipToAWaitingCandidateAtOnceAfterRevokingIt() {
        Journal journal = new Journal();
        List<LeaderElection> candidates = candidates(journal, 3, Duration.ofSeconds(30));
        LeaderElection first = leader(candidates);
        long firstTerm = first.leadership().orElseThrow().fencingToken();

        long yielded = System.nanoTime();
        first.yieldLeadership();
        await().atMost(Duration.ofSeconds(10)).until(() -> journal.terms.size() == 2);
        Duration handOver = Duration.ofNanos(System.nanoTime() - yielded);

        // Far below the 30 s lease: the next candidate was woken by the release, not by expiry.
        assertThat(handOver).isLessThan(Duration.ofSeconds(5));
        assertThat(first.isLeader()).isFalse();
        assertThat(journal.terms.get(1)).isGreaterThan(firstTerm);
        assertThat(journal.entries.indexOf("revoked " + firstCandidate(journal) + " " + firstTerm))
                .as("revoked before the next grant: %s", journal.entries)
                .isEqualTo(1);
        assertThat(journal.mostLeaders).hasValue(1);
    }

    private static String firstCandidate(Journal journal) {
        return journal.entries.get(0).split(" ")[1];
    }

    @Test
    default void aClosedLeaderStepsDownAndAnotherIsGrantedWithoutWaitingForItsLease() {
        Journal journal = new Journal();
        List<LeaderElection> candidates = candidates(journal, 2, Duration.ofSeconds(30));
        LeaderElection first = leader(candidates);

        first.close();

        LeaderElection second = leader(candidates);
        assertThat(second).isNotSameAs(first);
        assertThat(journal.terms).hasSize(2).isSorted();
        assertThat(journal.entries.get(1)).startsWith("revoked");
    }

    @Test
    default void aLeaderWhoseLeaseIsTakenAwayIsRevokedAndTheGroupGetsANewTerm() {
        Journal journal = new Journal();
        List<LeaderElection> candidates = candidates(journal, 2, Duration.ofSeconds(2));
        LeaderElection first = leader(candidates);
        long firstTerm = first.leadership().orElseThrow().fencingToken();

        assertThat(store().forceRelease("fencepost:leader:" + first.group())).isTrue();

        // Renewal (a third of the 2 s lease) finds the lease gone: the leader is told, and someone leads again.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> journal.entries.contains("revoked " + firstCandidate(journal) + " " + firstTerm));
        await().atMost(Duration.ofSeconds(10)).until(() -> journal.terms.size() == 2);
        assertThat(journal.terms.get(1)).isGreaterThan(firstTerm);
    }

    @Test
    default void candidatesThatYieldAtRandomNeverLeadTwoAtATimeAndTermsIncrease() {
        Journal journal = new Journal();
        String group = key();
        List<LeaderElection> candidates = candidates(journal, 3, Duration.ofSeconds(5), group);
        long end = System.nanoTime() + Duration.ofSeconds(4).toNanos();

        while (System.nanoTime() < end) {
            LeaderElection leader = leader(candidates);
            if (ThreadLocalRandom.current().nextInt(4) == 0) {
                leader.close(); // leaves for good, and a fresh candidate joins
                candidates = new ArrayList<>(candidates);
                candidates.remove(leader);
                candidates.addAll(candidates(journal, 1, Duration.ofSeconds(5), group));
            } else {
                leader.yieldLeadership();
            }
        }

        assertThat(journal.mostLeaders).hasValue(1);
        assertThat(journal.terms).hasSizeGreaterThan(3).isSorted().doesNotHaveDuplicates();
    }

    @Test
    default void aGroupMustBeNamed() {
        LockManager locks = manager();
        for (String group : new String[] {"", " ", null}) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> LeaderElection.builder(locks, group))
                    .withMessageContaining("group name");
        }
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LeaderElection.builder(locks, "g")
                        .leaseTime(Duration.ZERO)
                        .build())
                .withMessageContaining("lease");
    }
}
