package io.fencepost.sample.ledger;

import java.util.List;
import org.springframework.data.jdbc.repository.query.Modifying;
import org.springframework.data.jdbc.repository.query.Query;
import org.springframework.data.repository.ListCrudRepository;

/** Settlement runs, one per tick. */
public interface SettlementRunRepository extends ListCrudRepository<SettlementRun, Long> {

    List<SettlementRun> findTop20ByOrderByIdDesc();

    /** Settles every unsettled transfer into {@code run} and records their count and total on it. */
    @Modifying
    @Query("""
            WITH settled AS (
                UPDATE transfer SET settlement_run = :run WHERE settlement_run IS NULL RETURNING amount_cents
            )
            UPDATE settlement_run
               SET transfers = (SELECT count(*) FROM settled),
                   amount_cents = (SELECT coalesce(sum(amount_cents), 0) FROM settled)
             WHERE id = :run
            """)
    int settleInto(long run);
}
