package io.fencepost.sample.ledger;

import io.fencepost.lock.LockManager;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.testing.TestLocks;
import io.fencepost.sample.SampleProperties;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Two instances of the ledger on the test's locks, one of which pauses inside a transfer: it has read both balances
 * and is about to write them when, in {@link #transfer}, its leases run out and the other instance books a transfer of
 * its own. Everything runs on the test's thread, in this order; the other instance's transfer runs in a transaction
 * of its own (the paused one's stays open around it, as it would in another process).
 */
final class PausedTransfer {

    private final TestLocks locks;

    private final AccountRepository accounts;

    private final TransferRepository transfers;

    private final PlatformTransactionManager transactionManager;

    private final SampleProperties properties;

    private final DataSource dataSource;

    PausedTransfer(
            TestLocks locks,
            AccountRepository accounts,
            TransferRepository transfers,
            PlatformTransactionManager transactionManager,
            SampleProperties properties,
            DataSource dataSource) {
        this.locks = locks;
        this.accounts = accounts;
        this.transfers = transfers;
        this.transactionManager = transactionManager;
        this.properties = properties;
        this.dataSource = dataSource;
    }

    /**
     * Instance "sample-2" moves {@code pausedCents} from alice to bob and pauses before its first balance write; while
     * it pauses, both its leases run out and instance "sample-1" moves {@code otherCents} the same way.
     */
    void transfer(long pausedCents, long otherCents) {
        TransferService other = service(locks.manager(), accounts, TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        TransferService paused = service(
                locks.instance("sample-2"),
                pausingBeforeFirstWrite(accounts, () -> {
                    locks.expire(TransferService.key("alice"));
                    locks.expire(TransferService.key("bob"));
                    other.transfer("alice", "bob", otherCents);
                }),
                TransactionDefinition.PROPAGATION_REQUIRED);
        paused.transfer("alice", "bob", pausedCents);
    }

    private TransferService service(LockManager locks, AccountRepository accounts, int propagation) {
        TransactionTemplate transaction = new TransactionTemplate(transactionManager);
        transaction.setPropagationBehavior(propagation);
        return new TransferService(
                locks,
                accounts,
                transfers,
                transaction,
                properties,
                dataSource,
                PostgresLockManager.DEFAULT_TABLE_NAME);
    }

    /** The pause: the transfer has read the balances it is about to write. */
    private static AccountRepository pausingBeforeFirstWrite(AccountRepository accounts, Runnable pause) {
        AtomicBoolean paused = new AtomicBoolean();
        return (AccountRepository) Proxy.newProxyInstance(
                AccountRepository.class.getClassLoader(),
                new Class<?>[] {AccountRepository.class},
                (proxy, method, args) -> {
                    if (method.getName().startsWith("writeBalance") && paused.compareAndSet(false, true)) {
                        pause.run();
                    }
                    try {
                        return method.invoke(accounts, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
