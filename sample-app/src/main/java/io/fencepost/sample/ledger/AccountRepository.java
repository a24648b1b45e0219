package io.fencepost.sample.ledger;

import java.util.List;
import org.springframework.data.jdbc.repository.query.Modifying;
import org.springframework.data.jdbc.repository.query.Query;
import org.springframework.data.repository.ListCrudRepository;

/** Accounts; balances are written only through the fenced {@link #writeBalance}. */
public interface AccountRepository extends ListCrudRepository<Account, String> {

    List<Account> findAllByOrderByIdAsc();

    /**
     * Sets the balance, if no later holder of the account's lock has written it: a stale token updates no row.
     *
     * @return 1 when written, 0 when the token was refused
     */
    @Modifying
    @Query("UPDATE account SET balance_cents = :balanceCents, fence = :token WHERE id = :id AND fence <= :token")
    int writeBalance(String id, long balanceCents, long token);

    /** Sets the balance whatever token wrote it last: with {@code sample.transfers.fence-column=false}. */
    @Modifying
    @Query("UPDATE account SET balance_cents = :balanceCents WHERE id = :id")
    int writeBalanceUnfenced(String id, long balanceCents);

    /** The highest token the account has accepted, for the refusal's message. */
    @Query("SELECT fence FROM account WHERE id = :id")
    long fenceOf(String id);

    /** The sum of all balances: transfers move money, so it never changes. */
    @Query("SELECT coalesce(sum(balance_cents), 0) FROM account")
    long totalCents();
}
