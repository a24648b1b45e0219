package io.fencepost.sample.ledger;

import org.springframework.data.annotation.Id;
import org.springframework.data.relational.core.mapping.Table;

/**
 * An account and its balance.
 *
 * @param fence the highest fencing token of an {@code account:<id>} lease that wrote the row
 */
@Table("account")
public record Account(@Id String id, String owner, long balanceCents, long fence) {}
