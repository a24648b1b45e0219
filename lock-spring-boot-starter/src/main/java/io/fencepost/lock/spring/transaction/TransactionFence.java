package io.fencepost.lock.spring.transaction;

import io.fencepost.lock.Lease;
import io.fencepost.lock.jdbc.JdbcLeaseGuard;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionManager;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * {@code @DistributedLock(fenceTransaction = true)}: binds the transaction of a fenced {@code @Transactional} method to
 * the call's lease just before it commits, with a {@link JdbcLeaseGuard} on the lock table. It checks every fenced
 * method at start-up (a transaction that begins with the call, on a JDBC transaction manager whose {@code DataSource}
 * reaches the lock table's database) and adds itself to that transaction manager.
 */
public final class TransactionFence {

    /** Identifies a database server, a database and the lock table in it. */
    private static final String WHERE_SQL = """
            SELECT current_database() || '@' || coalesce(inet_server_addr()::text, 'local') || ':'
                       || coalesce(inet_server_port()::text, current_setting('port')) AS database,
                   to_regclass(?)::oid AS lock_table
            """;

    private final DataSource lockDataSource;

    private final String lockTableName;

    private final JdbcLeaseGuard guard;

    private final AnnotationTransactionAttributeSource attributes = new AnnotationTransactionAttributeSource();

    private final Map<TransactionManager, FencingTransactionListener> listeners = new ConcurrentHashMap<>();

    /**
     * A fence for leases on the lock table {@code lockTableName}, which lives where {@code lockDataSource} connects.
     *
     * @throws IllegalArgumentException for an invalid table name
     */
    public TransactionFence(DataSource lockDataSource, String lockTableName) {
        this.lockDataSource = unwrap(Objects.requireNonNull(lockDataSource, "lockDataSource"));
        this.lockTableName = lockTableName;
        this.guard = new JdbcLeaseGuard(lockTableName);
    }

    /**
     * Checks, at start-up, that the fenced method {@code method} of {@code targetClass} runs in a transaction of its own
     * on the lock table's database, and adds the fence to its transaction manager.
     *
     * @return null when all is well, else what is wrong and how to fix it
     */
    public String check(Method method, Class<?> targetClass, BeanFactory beanFactory) {
        TransactionAttribute attribute = attributes.getTransactionAttribute(method, targetClass);
        if (attribute == null) {
            return "fenceTransaction = true needs the method's own transaction: annotate it (or its class)"
                    + " @Transactional, or drop fenceTransaction";
        }
        int propagation = attribute.getPropagationBehavior();
        if (propagation != TransactionDefinition.PROPAGATION_REQUIRED
                && propagation != TransactionDefinition.PROPAGATION_REQUIRES_NEW
                && propagation != TransactionDefinition.PROPAGATION_NESTED) {
            return "fenceTransaction = true needs a transaction that begins with the call, but its @Transactional"
                    + " propagation is " + propagationName(propagation) + ": use REQUIRED or REQUIRES_NEW";
        }
        if (attribute.isReadOnly()) {
            return "fenceTransaction = true on a read-only transaction fences nothing: drop readOnly or"
                    + " fenceTransaction";
        }
        TransactionManager manager;
        try {
            manager = StringUtils.hasText(attribute.getQualifier())
                    ? BeanFactoryAnnotationUtils.qualifiedBeanOfType(
                            beanFactory, TransactionManager.class, attribute.getQualifier())
                    : beanFactory.getBean(TransactionManager.class);
        } catch (BeansException e) {
            return "fenceTransaction = true needs the method's transaction manager, but it could not be found: "
                    + e.getMessage();
        }
        if (!(manager instanceof DataSourceTransactionManager jdbc) || jdbc.getDataSource() == null) {
            return "fenceTransaction = true binds a JDBC transaction on the lock table's database, but the method's"
                    + " transaction manager is a " + manager.getClass().getName() + ": use Spring's"
                    + " JdbcTransactionManager or DataSourceTransactionManager on that database (for JdbcClient,"
                    + " JdbcTemplate or Spring Data JDBC)";
        }
        DataSource transactions = unwrap(jdbc.getDataSource());
        String elsewhere = sameDatabase(transactions);
        if (elsewhere != null) {
            return "fenceTransaction = true needs the method's transaction on the lock table's database, but "
                    + elsewhere
                    + ": run the transaction on the lock's DataSource (or put the lock table where the"
                    + " transaction runs, with @LockDataSource)";
        }
        listeners.computeIfAbsent(manager, m -> {
            FencingTransactionListener listener = new FencingTransactionListener(jdbc.getDataSource(), guard);
            jdbc.addListener(listener);
            return listener;
        });
        return null;
    }

    /**
     * Runs the fenced call {@code work} of {@code method} (of {@code targetClass}) under {@code lease}: the transaction
     * that begins for it is bound to the lease just before it commits.
     *
     * @throws IllegalStateException when the call did not begin a transaction of its own (it joined one that began
     *     before its lock was taken, which commits after the lease is released); that transaction is then marked
     *     rollback-only
     */
    public <T> T run(Lease lease, String method, Method invoked, Class<?> targetClass, Callable<T> work)
            throws Exception {
        return run(List.of(lease), method, invoked, targetClass, work);
    }

    /**
     * As {@link #run(Lease, String, Method, Class, Callable)}, for a call under the leases of a set of keys taken
     * together: the transaction is bound to every one of them, and commits only if all still hold.
     */
    public <T> T run(List<Lease> leases, String method, Method invoked, Class<?> targetClass, Callable<T> work)
            throws Exception {
        FencedCalls.Call call =
                new FencedCalls.Call(leases, method, ClassUtils.getQualifiedMethodName(invoked, targetClass));
        FencedCalls.push(call);
        try {
            T result = work.call();
            if (!call.bound() && !FencedCalls.coveredByEnclosing(call)) {
                markRollbackOnly();
                throw new IllegalStateException("@DistributedLock(fenceTransaction = true) on " + method
                        + " ran inside a transaction that began before its lock was taken, so that transaction"
                        + " commits after the lease is released and cannot be fenced: call the method outside a"
                        + " transaction, or make its @Transactional propagation REQUIRES_NEW");
            }
            return result;
        } finally {
            FencedCalls.pop(call);
        }
    }

    private static void markRollbackOnly() {
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            try {
                TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
            } catch (NoTransactionException e) {
                // begun without the transaction interceptor: the exception still makes its owner roll back
            }
        }
    }

    /** Null when {@code transactions} reaches the lock table's database, else where each of them is. */
    private String sameDatabase(DataSource transactions) {
        if (transactions == lockDataSource) {
            return null;
        }
        try {
            Where lock = where(lockDataSource);
            Where other = where(transactions);
            if (lock.equals(other) && other.lockTable() != 0) {
                return null;
            }
            return "the lock table '" + lockTableName + "' is in " + lock.database() + " and the transaction runs on "
                    + other.database() + (other.lockTable() == 0 ? " (where there is no such table)" : "");
        } catch (SQLException e) {
            return "the databases could not be compared: " + e.getMessage();
        }
    }

    private record Where(String database, long lockTable) {}

    private Where where(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement(WHERE_SQL)) {
            select.setString(1, lockTableName);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return new Where(rows.getString("database"), rows.getLong("lock_table"));
            }
        }
    }

    private static DataSource unwrap(DataSource dataSource) {
        DataSource current = dataSource;
        while (current instanceof TransactionAwareDataSourceProxy proxy && proxy.getTargetDataSource() != null) {
            current = proxy.getTargetDataSource();
        }
        return current;
    }

    private static String propagationName(int propagation) {
        return switch (propagation) {
            case TransactionDefinition.PROPAGATION_SUPPORTS -> "SUPPORTS";
            case TransactionDefinition.PROPAGATION_MANDATORY -> "MANDATORY";
            case TransactionDefinition.PROPAGATION_NOT_SUPPORTED -> "NOT_SUPPORTED";
            case TransactionDefinition.PROPAGATION_NEVER -> "NEVER";
            default -> Integer.toString(propagation);
        };
    }

    @Override
    public String toString() {
        return "TransactionFence[table=" + lockTableName + "]";
    }
}
