package io.fencepost.sample.ledger;

import java.util.List;
import org.springframework.data.jdbc.repository.query.Query;
import org.springframework.data.repository.ListCrudRepository;

/** Booked transfers with their ledger entries. */
public interface TransferRepository extends ListCrudRepository<Transfer, Long> {

    List<Transfer> findTop20ByOrderByIdDesc();

    @Query("SELECT count(*) FROM transfer WHERE settlement_run IS NULL")
    long countUnsettled();
}
