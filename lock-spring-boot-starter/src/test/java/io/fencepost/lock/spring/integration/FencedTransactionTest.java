package io.fencepost.lock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.LockContext;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaMode;
import io.fencepost.lock.jdbc.test.CountingDataSource;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spring.aop.InvalidDistributedLockException;
import io.fencepost.lock.spring.test.Latches;
import io.fencepost.lock.spring.test.LockContextRunners;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code @DistributedLock(fenceTransaction = true)} on PostgreSQL, with no fence column: a holder that paused past its
 * lease has its whole transaction rolled back and its caller gets {@link LeaseLostException}; without it, the paused
 * holder's late commit loses the next holder's update. Fenced methods that cannot be fenced fail the start-up.
 */
class FencedTransactionTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    /** Another database, for a transaction manager that is not on the lock table's database. */
    @RegisterExtension
    static PostgresTestDatabase other = new PostgresTestDatabase(2);

    private final ApplicationContextRunner contextRunner = LockContextRunners.transactionalOnDatabase(db);

    @BeforeEach
    void account() {
        db.execute("DROP TABLE IF EXISTS account, ledger;"
                + " CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL);"
                + " CREATE TABLE ledger (id bigserial PRIMARY KEY, entry text NOT NULL);"
                + " INSERT INTO account VALUES (1, 100);");
    }

    @Test
    void aPausedHoldersTransactionRollsBackWithLeaseLostAndTheNextHoldersUpdateStands() {
        contextRunner.withBean(Accounts.class).run(context -> {
            Throwable failure = pausedHolderRun(context.getBean(Accounts.class), true);

            assertThat(failure).isInstanceOf(LeaseLostException.class).hasMessageContaining("account:1");
            assertThat(balance()).as("B's deposit stands").isEqualTo(150);
            assertThat(ledger()).as("A's whole transaction was rolled back").containsExactly("B +50");
        });
    }

    @Test
    void withoutFenceTransactionThePausedHoldersLateCommitLosesTheNextHoldersUpdate() {
        contextRunner.withBean(Accounts.class).run(context -> {
            Throwable failure = pausedHolderRun(context.getBean(Accounts.class), false);

            assertThat(failure).isNull();
            assertThat(balance())
                    .as("A overwrote B's deposit with its stale read")
                    .isEqualTo(70);
            assertThat(ledger()).containsExactlyInAnyOrder("B +50", "A -30");
        });
    }

    /**
     * A withdraws 30: reads the balance, writes a ledger entry, then pauses past its 800 ms lease (not renewed); B
     * deposits 50 under the key and commits; A resumes and writes the balance it computed. Returns what A's caller got.
     */
    private static Throwable pausedHolderRun(Accounts accounts, boolean fenced) throws Exception {
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        CompletableFuture<Void> a = CompletableFuture.runAsync(() -> {
            if (fenced) {
                accounts.withdrawAfterPause(1, 30, paused, resume);
            } else {
                accounts.withdrawAfterPauseUnfenced(1, 30, paused, resume);
            }
        });
        assertThat(paused.await(10, TimeUnit.SECONDS)).isTrue();
        accounts.deposit(1, 50); // waits until A's lease has expired
        resume.countDown();
        try {
            a.get(10, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void aLeaseForceReleasedElsewhereRollsTheTransactionBack() {
        contextRunner.withBean(Accounts.class).run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            try (PostgresLockManager operator = PostgresLockManager.builder(context.getBean(DataSource.class))
                    .schemaMode(SchemaMode.NONE)
                    .build()) {
                assertThatThrownBy(() -> accounts.depositWhile(1, 50, () -> operator.forceRelease("account:1")))
                        .isInstanceOf(LeaseLostException.class)
                        .hasMessageContaining("roll the transaction back");
            }
            assertThat(balance()).isEqualTo(100);
            assertThat(ledger()).isEmpty();
        });
    }

    @Test
    void underRepeatableReadARenewalDuringTheTransactionDoesNotFailIt() {
        contextRunner.withBean(Accounts.class).run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            accounts.depositRepeatableWhile(1, 50, () -> {
                Lease lease = LockContext.current().orElseThrow();
                Instant first = lease.expiresAt();
                // the lease row is updated after the transaction's snapshot was taken
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> lease.expiresAt().isAfter(first));
            });
            assertThat(balance()).isEqualTo(150);
        });
    }

    @Test
    void underRepeatableReadALeaseForceReleasedAfterTheSnapshotRollsTheTransactionBack() {
        contextRunner.withBean(Accounts.class).run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            try (PostgresLockManager operator = PostgresLockManager.builder(context.getBean(DataSource.class))
                    .schemaMode(SchemaMode.NONE)
                    .build()) {
                assertThatThrownBy(
                                () -> accounts.depositRepeatableWhile(1, 50, () -> operator.forceRelease("account:1")))
                        .isInstanceOf(LeaseLostException.class)
                        .hasMessageContaining("after this transaction's snapshot");
            }
            assertThat(balance()).isEqualTo(100);
        });
    }

    @Test
    void aFencedCallThatJoinsAnEarlierTransactionFailsAndRollsItBack() {
        contextRunner.withBean(Accounts.class).run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            TransactionTemplate outer = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

            assertThatThrownBy(() -> outer.executeWithoutResult(status -> accounts.deposit(1, 50)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Accounts.deposit")
                    .hasMessageContaining("began before its lock was taken");
            assertThat(balance()).isEqualTo(100);
        });
    }

    @Test
    void theFenceCostsOneStatementInTheTransactionAndNothingElse() {
        contextRunner
                .withUserConfiguration(CountedDatabase.class)
                .withBean(Accounts.class)
                .run(context -> {
                    Accounts accounts = context.getBean(Accounts.class);
                    CountingDataSource counted = context.getBean(CountingDataSource.class);
                    accounts.depositUnfenced(1, 1); // warm: the pool's first connections, the lock's first statements
                    accounts.deposit(1, 1);
                    counted.reset();
                    accounts.depositUnfenced(1, 1);
                    int unfenced = counted.statements();
                    counted.reset();
                    accounts.deposit(1, 1);
                    List<String> fencedSql = counted.executedSql();
                    assertThat(counted.statements())
                            .as("statements with the fence: %s", fencedSql)
                            .isEqualTo(unfenced + 1);
                });
    }

    @Test
    void fenceTransactionWithoutATransactionFailsTheStartUp() {
        contextRunner
                .withBean(Untransacted.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .isInstanceOf(InvalidDistributedLockException.class)
                        .hasMessageContaining("Untransacted.run")
                        .hasMessageContaining("@Transactional"));
    }

    @Test
    void fenceTransactionOnAReadOnlyTransactionFailsTheStartUp() {
        contextRunner
                .withBean(ReadOnly.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .isInstanceOf(InvalidDistributedLockException.class)
                        .hasMessageContaining("ReadOnly.run")
                        .hasMessageContaining("read-only"));
    }

    @Test
    void fenceTransactionWithATransactionOnAnotherDatabaseFailsTheStartUp() {
        contextRunner
                .withUserConfiguration(TwoDatabases.class)
                .withBean(OtherDatabase.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .isInstanceOf(InvalidDistributedLockException.class)
                        .hasMessageContaining("OtherDatabase.run")
                        .hasMessageContaining("lock table's database")
                        .hasMessageContaining(other.databaseName()));
    }

    @Test
    void aSecondPoolOnTheLockTablesDatabaseIsAccepted() {
        contextRunner
                .withUserConfiguration(TwoPoolsOneDatabase.class)
                .withBean(OtherDatabase.class)
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aSetOfKeysBindsTheTransactionToEveryLeaseAndALostOneRollsItAllBack() {
        db.execute("INSERT INTO account VALUES (2, 0)");
        contextRunner.withBean(Accounts.class).run(context -> {
            Accounts accounts = context.getBean(Accounts.class);

            accounts.transferWhile(1, 2, 30, () -> {});
            assertThat(balance()).isEqualTo(70);

            // the second key's lease is taken away (its row gone) while the transfer's transaction is still open
            assertThatThrownBy(() -> accounts.transferWhile(
                            1, 2, 30, () -> db.execute("DELETE FROM distributed_lock WHERE lock_key = 'account:2'")))
                    .isInstanceOf(LeaseLostException.class)
                    .hasMessageContaining("account:2");
            assertThat(balance()).as("the whole transfer was rolled back").isEqualTo(70);
            assertThat(ledger()).containsExactly("T 1->2 30");
        });
    }

    private static long balance() {
        return new JdbcTemplate(db.dataSource()).queryForObject("SELECT balance FROM account WHERE id = 1", Long.class);
    }

    private static List<String> ledger() {
        return new JdbcTemplate(db.dataSource()).queryForList("SELECT entry FROM ledger ORDER BY id", String.class);
    }

    static class Accounts {

        @Autowired
        private JdbcTemplate jdbc;

        @DistributedLock(key = "'account:' + #id", leaseTime = "800ms", renew = false, fenceTransaction = true)
        @Transactional
        public void withdrawAfterPause(int id, long amount, CountDownLatch paused, CountDownLatch resume) {
            pauseThenWithdraw(id, amount, paused, resume);
        }

        @DistributedLock(key = "'account:' + #id", leaseTime = "800ms", renew = false)
        @Transactional
        public void withdrawAfterPauseUnfenced(int id, long amount, CountDownLatch paused, CountDownLatch resume) {
            pauseThenWithdraw(id, amount, paused, resume);
        }

        private void pauseThenWithdraw(int id, long amount, CountDownLatch paused, CountDownLatch resume) {
            long seen = jdbc.queryForObject("SELECT balance FROM account WHERE id = ?", Long.class, id);
            jdbc.update("INSERT INTO ledger (entry) VALUES (?)", "A -" + amount);
            paused.countDown();
            Latches.awaitGoAhead(resume, "the test never resumed the paused holder");
            jdbc.update("UPDATE account SET balance = ? WHERE id = ?", seen - amount, id);
        }

        @DistributedLock(key = "'account:' + #id", waitTime = "10s", fenceTransaction = true)
        @Transactional
        public void deposit(int id, long amount) {
            depositWhile(id, amount, () -> {});
        }

        @DistributedLock(key = "'account:' + #id", leaseTime = "600ms", fenceTransaction = true)
        @Transactional(isolation = Isolation.REPEATABLE_READ)
        public void depositRepeatableWhile(int id, long amount, Runnable meanwhile) {
            jdbc.update("UPDATE account SET balance = balance + ? WHERE id = ?", amount, id);
            meanwhile.run();
        }

        @DistributedLock(key = "{'account:' + #from, 'account:' + #to}", waitTime = "10s", fenceTransaction = true)
        @Transactional
        public void transferWhile(int from, int to, long amount, Runnable meanwhile) {
            jdbc.update("UPDATE account SET balance = balance - ? WHERE id = ?", amount, from);
            jdbc.update("UPDATE account SET balance = balance + ? WHERE id = ?", amount, to);
            jdbc.update("INSERT INTO ledger (entry) VALUES (?)", "T " + from + "->" + to + " " + amount);
            meanwhile.run();
        }

        @DistributedLock(key = "'account:' + #id", waitTime = "10s")
        @Transactional
        public void depositUnfenced(int id, long amount) {
            jdbc.update("UPDATE account SET balance = balance + ? WHERE id = ?", amount, id);
            jdbc.update("INSERT INTO ledger (entry) VALUES (?)", "B +" + amount);
        }

        @DistributedLock(key = "'account:' + #id", waitTime = "10s", fenceTransaction = true)
        @Transactional
        public void depositWhile(int id, long amount, Runnable meanwhile) {
            LockContext.current().orElseThrow().checkHeld();
            jdbc.update("UPDATE account SET balance = balance + ? WHERE id = ?", amount, id);
            jdbc.update("INSERT INTO ledger (entry) VALUES (?)", "B +" + amount);
            meanwhile.run();
        }
    }

    static class Untransacted {

        @DistributedLock(key = "'job'", fenceTransaction = true)
        public void run() {}
    }

    static class ReadOnly {

        @DistributedLock(key = "'job'", fenceTransaction = true)
        @Transactional(readOnly = true)
        public void run() {}
    }

    static class OtherDatabase {

        @DistributedLock(key = "'job'", fenceTransaction = true)
        @Transactional("otherTransactions")
        public void run() {}
    }

    /**
     * The test database's own pool (shared by the tests) as the primary {@code DataSource} and transaction manager,
     * and a transaction manager {@code otherTransactions} on {@link #otherDataSource()}.
     */
    abstract static class PrimaryAndOtherTransactions {

        @Bean(destroyMethod = "")
        @Primary
        DataSource dataSource() {
            return db.dataSource();
        }

        @Bean
        @Primary
        JdbcTransactionManager transactionManager(DataSource dataSource) {
            return new JdbcTransactionManager(dataSource);
        }

        @Bean
        JdbcTransactionManager otherTransactions() {
            return new JdbcTransactionManager(otherDataSource());
        }

        abstract DataSource otherDataSource();
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoDatabases extends PrimaryAndOtherTransactions {

        @Override
        DataSource otherDataSource() {
            return other.dataSource();
        }
    }

    /** One pool on the test database, counting every statement (the lock's and the transactions'). */
    @Configuration(proxyBeanMethods = false)
    static class CountedDatabase {

        @Bean
        CountingDataSource dataSource() {
            return new CountingDataSource(db.unpooledDataSource());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoPoolsOneDatabase extends PrimaryAndOtherTransactions {

        @Override
        DataSource otherDataSource() {
            return db.unpooledDataSource();
        }
    }
}
