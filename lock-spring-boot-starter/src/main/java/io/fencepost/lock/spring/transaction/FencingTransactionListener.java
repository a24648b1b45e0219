package io.fencepost.lock.spring.transaction;

import io.fencepost.lock.Lease;
import io.fencepost.lock.jdbc.JdbcLeaseGuard;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Added to each transaction manager that runs a fenced method: binds the method's transaction to its call when the
 * transaction begins, and right before it commits (after every synchronization's {@code beforeCommit} and
 * {@code beforeCompletion}) binds it to the call's lease on the transaction's own connection. A failure there rolls
 * the transaction back, and the caller gets it.
 */
final class FencingTransactionListener implements TransactionExecutionListener {

    private final DataSource dataSource;

    private final JdbcLeaseGuard guard;

    FencingTransactionListener(DataSource dataSource, JdbcLeaseGuard guard) {
        this.dataSource = dataSource;
        this.guard = guard;
    }

    @Override
    public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
        if (beginFailure == null && transaction.isNewTransaction()) {
            FencedCalls.began(transaction);
        }
    }

    @Override
    public void beforeCommit(TransactionExecution transaction) {
        FencedCalls.Call call = FencedCalls.boundTo(transaction);
        if (call == null) {
            return;
        }
        if (!(TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder)) {
            throw new IllegalStateException("@DistributedLock(fenceTransaction = true) on " + call.method
                    + ": its transaction has no JDBC connection on the transaction manager's DataSource");
        }
        // A set of keys binds every lease of the set: the transaction commits only if all of them still hold.
        for (Lease lease : call.leases) {
            try {
                guard.holdUntilCommit(holder.getConnection(), lease);
            } catch (SQLException e) {
                throw new TransactionSystemException(
                        "could not bind the transaction of " + call.method + " to its lease on '" + lease.key() + "': "
                                + e.getMessage(),
                        e);
            }
        }
    }

    DataSource dataSource() {
        return dataSource;
    }
}
