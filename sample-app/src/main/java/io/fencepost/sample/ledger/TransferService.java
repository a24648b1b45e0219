package io.fencepost.sample.ledger;

import io.fencepost.lock.FencingTokenRejectedException;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.MultiLease;
import io.fencepost.lock.jdbc.JdbcLeaseGuard;
import io.fencepost.sample.SampleProperties;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Moves money between two accounts under a lock on each: {@code account:<id>}, both taken together.
 *
 * <p>Why both, and why together: a transfer reads and rewrites two balances, so it must exclude every other
 * transfer touching either account. Taking the two locks one after the other in the order the request names them
 * would let alice→bob hold {@code account:alice} while bob→alice holds {@code account:bob}, each waiting for the
 * other until its wait time runs out. {@link LockManager#acquireAll} takes both in one step of the store, all or
 * none, and holds neither while it waits for the other, so no two transfers can wait for each other, whatever
 * order they name the accounts in; on PostgreSQL it is one statement and one durable commit, not two.
 *
 * <p>Locks come first, then the transaction, and the locks are released only after it commits: the next holder
 * then reads this one's balances. Right before the commit, {@link JdbcLeaseGuard} binds the transaction to both
 * leases: it commits only if both are still held, and no other grant of either account commits before it ends, so a
 * holder whose lease ran out (a pause longer than the lease) has its whole transfer rolled back. Every balance write
 * also carries the account's fencing token, the fence column that protects a resource outside the lock's database
 * (here both remedies are shown; either one alone would do, and {@code sample.transfers.fence-column} and
 * {@code sample.transfers.fence-transaction} turn each off, so that the tests can show it).
 */
@Service
public class TransferService {

    private final LockManager locks;

    private final AccountRepository accounts;

    private final TransferRepository transfers;

    private final TransactionTemplate transaction;

    private final LockOptions lockOptions;

    private final DataSource dataSource;

    private final JdbcLeaseGuard guard;

    private final boolean fenceColumn;

    private final boolean fenceTransaction;

    public TransferService(
            LockManager locks,
            AccountRepository accounts,
            TransferRepository transfers,
            TransactionTemplate transaction,
            SampleProperties properties,
            DataSource dataSource,
            @Value("${fencepost.jdbc.table-name:distributed_lock}") String lockTable) {
        this.locks = locks;
        this.dataSource = dataSource;
        this.guard = new JdbcLeaseGuard(lockTable);
        this.accounts = accounts;
        this.transfers = transfers;
        this.transaction = transaction;
        this.fenceColumn = properties.transfers().fenceColumn();
        this.fenceTransaction = properties.transfers().fenceTransaction();
        this.lockOptions = LockOptions.builder()
                .leaseTime(properties.transfers().leaseTime())
                .waitTime(properties.transfers().waitTime())
                .name("transfer")
                .build();
    }

    /**
     * Books a transfer of {@code amountCents} from one account to another.
     *
     * @throws TransferRejectedException for a bad request, an unknown account or insufficient funds
     * @throws io.fencepost.lock.LockNotAcquiredException when an account stayed busy for the whole wait time
     * @throws FencingTokenRejectedException when a lease was superseded before the write (nothing is booked)
     * @throws io.fencepost.lock.LeaseLostException when a lease was lost before the commit (nothing is booked)
     */
    public Transfer transfer(String from, String to, long amountCents) {
        if (from == null || to == null || from.equals(to)) {
            throw new TransferRejectedException(
                    HttpStatus.BAD_REQUEST, "a transfer needs two different accounts, was " + from + " -> " + to);
        }
        if (amountCents <= 0) {
            throw new TransferRejectedException(
                    HttpStatus.BAD_REQUEST, "the amount must be positive, was " + amountCents + " cents");
        }
        try (MultiLease both = locks.acquireAll(List.of(key(from), key(to)), lockOptions)) {
            Map<String, Lease> leases = Map.of(from, both.lease(key(from)), to, both.lease(key(to)));
            return transaction.execute(status -> {
                Transfer booked = book(from, to, amountCents, leases);
                if (fenceTransaction) {
                    holdUntilCommit(both);
                }
                return booked;
            });
        }
    }

    private Transfer book(String from, String to, long amountCents, Map<String, Lease> leases) {
        Account source = find(from);
        Account target = find(to);
        if (source.balanceCents() < amountCents) {
            throw new TransferRejectedException(
                    HttpStatus.CONFLICT,
                    "account " + from + " has " + source.balanceCents() + " cents, cannot send " + amountCents);
        }
        long fromToken = leases.get(from).fencingToken();
        long toToken = leases.get(to).fencingToken();
        write(source, source.balanceCents() - amountCents, fromToken);
        write(target, target.balanceCents() + amountCents, toToken);
        Transfer booked = transfers.save(Transfer.book(from, to, amountCents, fromToken, toToken));
        return transfers.findById(booked.id()).orElse(booked); // with the database's created_at
    }

    /** The last statements of the transaction: it commits only while both leases are held. */
    private void holdUntilCommit(MultiLease both) {
        Connection connection = DataSourceUtils.getConnection(dataSource); // the transaction's own
        try {
            for (Lease lease : both.leases()) {
                guard.holdUntilCommit(connection, lease);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not bind the transfer to its leases: " + e.getMessage(), e);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    private Account find(String id) {
        return accounts.findById(id)
                .orElseThrow(() -> new TransferRejectedException(HttpStatus.NOT_FOUND, "no account " + id));
    }

    private void write(Account account, long balanceCents, long token) {
        if (!fenceColumn) {
            accounts.writeBalanceUnfenced(account.id(), balanceCents);
            return;
        }
        if (accounts.writeBalance(account.id(), balanceCents, token) != 1) {
            // Thrown inside the transaction: it rolls back, so the other side of the transfer is undone too.
            throw new FencingTokenRejectedException(key(account.id()), token, accounts.fenceOf(account.id()));
        }
    }

    static String key(String accountId) {
        return "account:" + accountId;
    }
}
