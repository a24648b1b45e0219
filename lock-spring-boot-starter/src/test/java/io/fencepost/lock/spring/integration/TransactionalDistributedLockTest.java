package io.fencepost.lock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockContext;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spring.test.Latches;
import io.fencepost.lock.spring.test.LockContextRunners;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@code @DistributedLock} on a {@code @Transactional} method: the lock wraps the transaction, so the next holder of
 * the key sees everything the previous one committed. With JDK and with class proxies.
 */
class TransactionalDistributedLockTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private final ApplicationContextRunner contextRunner =
            LockContextRunners.transactionalOnDatabase(db).withBean(Ledger.class, JdbcLedger::new);

    @BeforeAll
    static void createTable() {
        db.execute("CREATE TABLE ledger_entry (account text NOT NULL, seen integer NOT NULL)");
    }

    @Test
    void theSecondCallerSeesTheFirstCallersCommittedRowThroughJdkProxies() throws Exception {
        contextRunner.withPropertyValues("spring.aop.proxy-target-class=false").run(context -> {
            assertThat(AopUtils.isJdkDynamicProxy(context.getBean(Ledger.class)))
                    .isTrue();
            assertSecondCallerSeesFirstCommit(context, "jdk");
        });
    }

    @Test
    void theSecondCallerSeesTheFirstCallersCommittedRowThroughClassProxies() throws Exception {
        contextRunner.withPropertyValues("spring.aop.proxy-target-class=true").run(context -> {
            assertThat(AopUtils.isCglibProxy(context.getBean(Ledger.class))).isTrue();
            assertSecondCallerSeesFirstCommit(context, "cglib");
        });
    }

    private static void assertSecondCallerSeesFirstCommit(AssertableApplicationContext context, String account)
            throws Exception {
        Ledger ledger = context.getBean(Ledger.class);
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try {
            assertSecondCallerSeesFirstCommit(ledger, account, callers);
        } finally {
            callers.shutdownNow();
        }
    }

    private static void assertSecondCallerSeesFirstCommit(Ledger ledger, String account, ExecutorService callers)
            throws Exception {
        CountDownLatch firstInside = new CountDownLatch(1);
        CountDownLatch firstMayCommit = new CountDownLatch(1);
        CompletableFuture<Entry> first =
                CompletableFuture.supplyAsync(() -> ledger.append(account, firstInside, firstMayCommit), callers);
        assertThat(firstInside.await(10, TimeUnit.SECONDS)).isTrue();

        AtomicReference<Thread> secondThread = new AtomicReference<>();
        CompletableFuture<Entry> second = CompletableFuture.supplyAsync(
                () -> {
                    secondThread.set(Thread.currentThread());
                    return ledger.append(account, new CountDownLatch(1), new CountDownLatch(0));
                },
                callers);
        // The second caller is inside the lock manager, waiting for the key, while the first holds it uncommitted.
        await().atMost(Duration.ofSeconds(10)).until(() -> waitsForALock(secondThread.get()));
        assertThat(second).isNotDone();

        firstMayCommit.countDown();
        Entry firstEntry = first.get(10, TimeUnit.SECONDS);
        Entry secondEntry = second.get(10, TimeUnit.SECONDS);

        assertThat(firstEntry.seen()).isZero();
        assertThat(secondEntry.seen())
                .as("rows the second caller saw once it held the lock")
                .isOne();
        assertThat(secondEntry.fencingToken()).isGreaterThan(firstEntry.fencingToken());
        assertThat(firstEntry.transactionActive()).isTrue();
        assertThat(firstEntry.leaseHeldAtCompletion().get())
                .as("lease held when the transaction committed")
                .isTrue();
        assertThat(secondEntry.leaseHeldAtCompletion().get()).isTrue();
    }

    private static boolean waitsForALock(Thread thread) {
        if (thread == null) {
            return false;
        }
        List<StackTraceElement> frames = Arrays.asList(thread.getStackTrace());
        return frames.stream().anyMatch(frame -> frame.getClassName().startsWith("io.fencepost.lock.core."))
                && (thread.getState() == Thread.State.WAITING || thread.getState() == Thread.State.TIMED_WAITING);
    }

    record Entry(
            int seen, long fencingToken, boolean transactionActive, AtomicReference<Boolean> leaseHeldAtCompletion) {}

    interface Ledger {

        Entry append(String account, CountDownLatch inside, CountDownLatch mayCommit);
    }

    static class JdbcLedger implements Ledger {

        @org.springframework.beans.factory.annotation.Autowired
        private JdbcTemplate jdbc;

        @Override
        @DistributedLock(key = "'ledger:' + #account", waitTime = "20s")
        @Transactional
        public Entry append(String account, CountDownLatch inside, CountDownLatch mayCommit) {
            Lease lease = LockContext.current().orElseThrow();
            int seen =
                    jdbc.queryForObject("SELECT count(*) FROM ledger_entry WHERE account = ?", Integer.class, account);
            jdbc.update("INSERT INTO ledger_entry (account, seen) VALUES (?, ?)", account, seen);
            AtomicReference<Boolean> heldAtCompletion = new AtomicReference<>();
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    heldAtCompletion.set(status == STATUS_COMMITTED && lease.isHeld());
                }
            });
            inside.countDown();
            Latches.awaitGoAhead(mayCommit, "the test never let the first caller commit");
            return new Entry(
                    seen,
                    lease.fencingToken(),
                    TransactionSynchronizationManager.isActualTransactionActive(),
                    heldAtCompletion);
        }
    }
}
