package io.fencepost.sample.ledger;

import io.fencepost.lock.FencingTokenRejectedException;
import io.fencepost.lock.spring.testing.AutoConfigureTestLocks;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * A transfer paused past its leases, with the fence column as the only protection (the transaction fence off): its
 * late balance write carries a token lower than the one the account accepted meanwhile, is refused, and the transfer
 * rolls back. The leases are in memory: the fence column needs nothing of the lock store.
 */
@SpringBootTest(
        properties = {
            "sample.settlement.enabled=false",
            "sample.transfers.fence-column=true",
            "sample.transfers.fence-transaction=false"
        })
@AutoConfigureTestLocks
class TransferPastItsLeaseFenceColumnTest extends TransferPausedPastItsLease {

    @Test
    void aTransferPausedPastItsLeaseIsRefusedAndLosesNoMoney() {
        theLateTransferFailsWithAndLosesNoMoney(FencingTokenRejectedException.class);
    }
}
