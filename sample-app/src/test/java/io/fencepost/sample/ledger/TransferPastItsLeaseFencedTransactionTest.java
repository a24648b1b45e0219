package io.fencepost.sample.ledger;

import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.spring.testing.AutoConfigureTestLocks;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * A transfer paused past its leases, with the fenced transaction as the only protection (the fence column off): its
 * late balance writes go through, but right before the commit the transaction finds its leases gone and rolls back.
 * The leases are in PostgreSQL, where {@code JdbcLeaseGuard} checks them.
 */
@SpringBootTest(
        properties = {
            "sample.settlement.enabled=false",
            "sample.transfers.fence-column=false",
            "sample.transfers.fence-transaction=true"
        })
@AutoConfigureTestLocks(store = AutoConfigureTestLocks.Store.POSTGRES)
class TransferPastItsLeaseFencedTransactionTest extends TransferPausedPastItsLease {

    @Test
    void aTransferPausedPastItsLeaseRollsBackAndLosesNoMoney() {
        theLateTransferFailsWithAndLosesNoMoney(LeaseLostException.class);
    }
}
