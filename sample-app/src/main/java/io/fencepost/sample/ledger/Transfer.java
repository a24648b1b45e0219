package io.fencepost.sample.ledger;

import java.time.Instant;
import java.util.Set;
import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.ReadOnlyProperty;
import org.springframework.data.relational.core.mapping.MappedCollection;
import org.springframework.data.relational.core.mapping.Table;

/**
 * A booked transfer, the aggregate root of its two ledger entries.
 *
 * @param createdAt set by the database clock
 * @param settlementRun the settlement run that settled it, written only by the settlement job
 */
@Table("transfer")
public record Transfer(
        @Id Long id,
        String fromAccount,
        String toAccount,
        long amountCents,
        @ReadOnlyProperty Instant createdAt,
        @ReadOnlyProperty Long settlementRun,
        @MappedCollection(idColumn = "transfer_id") Set<LedgerEntry> entries) {

    static Transfer book(String from, String to, long amountCents, long fromToken, long toToken) {
        return new Transfer(
                null,
                from,
                to,
                amountCents,
                null,
                null,
                Set.of(new LedgerEntry(from, -amountCents, fromToken), new LedgerEntry(to, amountCents, toToken)));
    }
}
