package io.fencepost.sample.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.fencepost.lock.testing.Grant;
import io.fencepost.lock.testing.TestLocks;
import io.fencepost.sample.SampleProperties;
import io.fencepost.sample.TestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * What the two tests of a transfer paused past its leases share: the application on the class's database, and the
 * scenario (the paused instance's transfer, the other instance's meanwhile) with what must hold after it, whichever
 * protection refused the late write. Each test names the protection it leaves on, and how its refusal shows.
 */
@ExtendWith(TestDatabase.class) // before @SpringBootTest: the database outlives the application
@DirtiesContext
abstract class TransferPausedPastItsLease {

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

    /** Runs the scenario: the late transfer fails with {@code refusal}, and no money is lost. */
    void theLateTransferFailsWithAndLosesNoMoney(Class<? extends Throwable> refusal) {
        PausedTransfer scenario =
                new PausedTransfer(locks, accounts, transfers, transactionManager, properties, dataSource);
        Ledger ledger = new Ledger(jdbc);

        Throwable late = catchThrowable(() -> scenario.transfer(100, 300));

        ledger.assertBalancesMatchTheBookedEntries();
        assertThat(ledger.balance("alice"))
                .as("only the other instance's transfer is booked")
                .isEqualTo(100_000 - 300);
        assertThat(late).isInstanceOf(refusal);
        assertThat(locks.grants(TransferService.key("alice")))
                .extracting(Grant::holder)
                .containsExactly("sample-2", "sample-1");
    }
}
