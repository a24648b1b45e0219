package io.fencepost.sample.ledger;

import java.time.Instant;
import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.ReadOnlyProperty;
import org.springframework.data.relational.core.mapping.Table;

/**
 * One run of the settlement job.
 *
 * @param tick the cron slot the run served
 * @param instance the instance that ran it
 * @param fencingToken the token of the job's lease
 * @param transfers how many transfers it settled
 * @param amountCents their total amount
 */
@Table("settlement_run")
public record SettlementRun(
        @Id Long id,
        Instant tick,
        String instance,
        long fencingToken,
        int transfers,
        long amountCents,
        @ReadOnlyProperty Instant startedAt) {}
