package io.fencepost.sample.ledger;

import org.springframework.data.relational.core.mapping.Table;

/**
 * One side of a transfer.
 *
 * @param amountCents negative for the debit, positive for the credit
 * @param fencingToken the token of the lease under which the account was written
 */
@Table("ledger_entry")
public record LedgerEntry(String accountId, long amountCents, long fencingToken) {}
