package io.fencepost.sample.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.spring.testing.AutoConfigureTestLocks;
import io.fencepost.lock.testing.Grant;
import io.fencepost.lock.testing.TestLocks;
import io.fencepost.sample.SampleProperties;
import io.fencepost.sample.TestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * A transfer paused past its leases, with the fenced transaction as the only protection (the fence column off): its
 * late balance writes go through, but right before the commit the transaction finds its leases gone and rolls back.
 * The leases are in PostgreSQL, where {@code JdbcLeaseGuard} checks them.
 */
@ExtendWith(TestDatabase.class) // before @SpringBootTest: the database outlives the application
@SpringBootTest(
        properties = {
            "sample.settlement.enabled=false",
            "sample.transfers.fence-column=false",
            "sample.transfers.fence-transaction=true"
        })
@AutoConfigureTestLocks(store = AutoConfigureTestLocks.Store.POSTGRES)
@DirtiesContext
class TransferPastItsLeaseFencedTransactionTest {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", TestDatabase::jdbcUrl);
    }

    @Autowired
    TestLocks locks;

    @Autowired
    AccountRepository accounts;

    @Autowired
    TransferRepository transfers;

    @Autowired
    PlatformTransactionManager transactionManager;

    @Autowired
    SampleProperties properties;

    @Autowired
    DataSource dataSource;

    @Autowired
    JdbcClient jdbc;

    @Test
    void aTransferPausedPastItsLeaseRollsBackAndLosesNoMoney() {
        PausedTransfer scenario =
                new PausedTransfer(locks, accounts, transfers, transactionManager, properties, dataSource);
        Ledger ledger = new Ledger(jdbc);

        Throwable late = catchThrowable(() -> scenario.transfer(100, 300));

        ledger.assertBalancesMatchTheBookedEntries();
        assertThat(ledger.balance("alice"))
                .as("only the other instance's transfer is booked")
                .isEqualTo(100_000 - 300);
        assertThat(late).isInstanceOf(LeaseLostException.class);
        assertThat(locks.grants(TransferService.key("alice")))
                .extracting(Grant::holder)
                .containsExactly("sample-2", "sample-1");
    }
}
