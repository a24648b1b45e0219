package io.fencepost.sample.lab;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The lab's records: the grant table shows the latest grants, and the pinned events stay until reset. */
class LabLogTest {

    private final LabLog log = new LabLog();

    @Test
    void anOutcomeOfAGrantMadeBeforeTheResetDoesNotBringItBack() {
        log.grant(4, "A");
        log.clear();
        log.grant(13, "B");
        log.outcome(4, "A", "rejected"); // the paused holder of token 4 wakes up after the reset

        assertThat(log.grants()).extracting(LabState.Grant::fencingToken).containsExactly(13L);
    }

    @Test
    void theTableKeepsTheHighestTokensWhateverOrderTheirOutcomesArriveIn() {
        for (long token = 1; token <= 14; token++) {
            log.grant(token, "A");
        }
        log.outcome(1, "A", "rejected"); // a late outcome of the oldest grant
        log.grant(15, "B");

        assertThat(log.grants())
                .extracting(LabState.Grant::fencingToken)
                .hasSize(14)
                .startsWith(15L, 14L)
                .endsWith(2L)
                .doesNotContain(1L);
    }

    @Test
    void pinnedEventsOutliveTheEventLogUntilTheReset() {
        log.event("A", "violation", "VIOLATION: first");
        for (int i = 0; i < 500; i++) {
            log.event("B", "write", "B wrote " + i);
        }
        log.event("C", "rejected", "REJECTED: second");

        assertThat(log.eventsSince(0)).noneMatch(event -> event.text().equals("VIOLATION: first"));
        assertThat(log.pinned())
                .extracting(LabState.Event::text)
                .containsExactly("REJECTED: second", "VIOLATION: first");

        log.clear();
        assertThat(log.pinned()).isEmpty();
    }
}
