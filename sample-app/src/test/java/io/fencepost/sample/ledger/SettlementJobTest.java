package io.fencepost.sample.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.sample.SampleProperties;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SettlementJobTest {

    private final SettlementJob job = new SettlementJob(
            null, null, new SampleProperties("test", null, null), "*/10 * * * * *", Duration.ofSeconds(5));

    @Test
    void aRunRecordsTheSlotItFiredFor() {
        assertThat(job.slot(Instant.parse("2026-01-01T12:00:00.015Z"))).isEqualTo("2026-01-01T12:00:00Z");
    }

    @Test
    void aRunThatFiresLateWithinTheMinimumHoldStillRecordsItsOwnSlot() {
        assertThat(job.slot(Instant.parse("2026-01-01T12:00:04.900Z"))).isEqualTo("2026-01-01T12:00:00Z");
    }

    @Test
    void aRunThatFiresABitEarlyRecordsTheSlotAhead() {
        assertThat(job.slot(Instant.parse("2026-01-01T11:59:59.990Z"))).isEqualTo("2026-01-01T12:00:00Z");
    }
}
