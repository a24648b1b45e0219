package io.fencepost.lock.benchmarks.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.benchmarks.scenarios.HandOffPhases.Section;
import io.fencepost.lock.benchmarks.wire.StatementTimeline.Call;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A hand-off is cut at its statements, and one whose next holder was not blocked when the release began is left out. */
class HandOffPhasesTest {

    private static final long US = 1_000;

    @Test
    void cutsAHandOffAtTheReleaseTheWaitAndTheGrant() {
        // Node 1 was blocked in its wait since 10 µs, and it returned after node 0's release statement was sent.
        HandOffPhases phases = handOffWithTheWaitReturningAt(350 * US);

        assertThat(phases.handOffs()).isEqualTo(1);
        assertThat(phases.skipped()).isZero();
        assertThat(phases.handOffUs()).isEqualTo(800);
        assertThat(phases.beforeReleaseUs()).isEqualTo(30);
        assertThat(phases.wakeUpUs()).isEqualTo(220);
        assertThat(phases.waiterHopUs()).isEqualTo(70);
        assertThat(phases.grantUs()).isEqualTo(440);
        assertThat(phases.afterGrantUs()).isEqualTo(40);
        assertThat(phases.releaseStatementUs()).isEqualTo(250);
        assertThat(phases.beforeReleaseUs()
                        + phases.wakeUpUs()
                        + phases.waiterHopUs()
                        + phases.grantUs()
                        + phases.afterGrantUs())
                .isEqualTo(phases.handOffUs());
        assertThat(List.of(phases.releaseKind(), phases.waitKind(), phases.grantKind()))
                .containsExactly("WITH…DELETE", "WITH", "INSERT");
    }

    @Test
    void leavesOutAHandOffWhoseWaiterWasNotBlockedWhenTheReleaseBegan() {
        // Node 1's wait returned before node 0's release statement was sent: it did not wait for that release.
        HandOffPhases phases = handOffWithTheWaitReturningAt(120 * US);

        assertThat(phases.handOffs()).isZero();
        assertThat(phases.skipped()).isEqualTo(1);
    }

    /**
     * Node 0 holds from 0 and releases at 100 µs (its statement from 130 to 380 µs); node 1 waits from 10 µs until
     * {@code waitEnd}, sends its grant from 420 to 860 µs and enters its critical section at 900 µs.
     */
    private static HandOffPhases handOffWithTheWaitReturningAt(long waitEnd) {
        List<Section> sections =
                List.of(new Section(0, 0, 100 * US, 400 * US), new Section(1, 900 * US, 950 * US, 990 * US));
        List<Call> releaser = List.of(new Call("WITH…DELETE", 130 * US, 380 * US));
        List<Call> waiter = List.of(new Call("WITH", 10 * US, waitEnd), new Call("INSERT", 420 * US, 860 * US));
        return HandOffPhases.of(sections, List.of(releaser, waiter), 1.0);
    }
}
