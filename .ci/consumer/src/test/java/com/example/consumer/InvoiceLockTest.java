package com.example.consumer;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencepost.lock.FencingTokenRejectedException;
import io.fencepost.lock.InMemoryFencingGuard;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.testing.TestLocks;
import io.fencepost.lock.testing.TestLocksExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A plain JUnit test, no Spring, no database: a holder paused past its lease cannot write any more. */
@ExtendWith(TestLocksExtension.class)
class InvoiceLockTest {

    @Test
    void aHolderWhoseLeaseRanOutCannotWriteAfterTheNextHolder(TestLocks locks) {
        InMemoryFencingGuard invoices = new InMemoryFencingGuard();
        Lease paused = locks.manager().acquire("invoice:42", LockOptions.of(Duration.ofSeconds(30)));

        locks.expire("invoice:42"); // the holder pauses past its lease
        try (Lease next = locks.instance("node-2").acquire("invoice:42", LockOptions.of(Duration.ofSeconds(30)))) {
            invoices.check("invoice:42", next);
        }

        assertThatThrownBy(() -> invoices.check("invoice:42", paused))
                .isInstanceOf(FencingTokenRejectedException.class);
    }
}
