package io.fencepost.sample.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.jdbc.core.simple.JdbcClient;

/** What the ledger's books say: every balance is its opening balance plus the entries booked on it. */
final class Ledger {

    private static final long OPENING_CENTS = 100_000;

    private final JdbcClient jdbc;

    Ledger(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    long balance(String account) {
        return jdbc.sql("SELECT balance_cents FROM account WHERE id = ?")
                .param(account)
                .query(Long.class)
                .single();
    }

    /** No money appeared or vanished: each balance matches the transfers booked on it. */
    void assertBalancesMatchTheBookedEntries() {
        for (String account : new String[] {"alice", "bob"}) {
            long booked = jdbc.sql("SELECT coalesce(sum(amount_cents), 0) FROM ledger_entry WHERE account_id = ?")
                    .param(account)
                    .query(Long.class)
                    .single();
            assertThat(balance(account))
                    .as("the balance of %s against its opening balance and booked entries", account)
                    .isEqualTo(OPENING_CENTS + booked);
        }
    }
}
