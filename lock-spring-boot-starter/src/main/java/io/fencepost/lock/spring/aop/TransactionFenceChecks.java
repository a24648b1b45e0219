package io.fencepost.lock.spring.aop;

import io.fencepost.lock.spring.transaction.TransactionFence;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.beans.factory.BeanFactory;

/** Checks every {@code fenceTransaction} method at start-up, so that none fails only when it is first called. */
final class TransactionFenceChecks {

    /** Why a fenced method cannot run when the application has no {@link TransactionFence}. */
    static final String NO_FENCE = "fenceTransaction = true needs fencepost's PostgreSQL lock manager with its"
            + " TransactionFence (auto-configured with the lock manager; with a lock manager of your own, declare a"
            + " TransactionFence bean on its DataSource and table)";

    private final Supplier<TransactionFence> fence;

    private final BeanFactory beanFactory;

    TransactionFenceChecks(Supplier<TransactionFence> fence, BeanFactory beanFactory) {
        this.fence = fence;
        this.beanFactory = beanFactory;
    }

    /** @throws InvalidDistributedLockException naming the first fenced method that cannot be fenced, and why */
    void check(List<LockDefinition> definitions) {
        TransactionFence transactionFence = null;
        for (LockDefinition definition : definitions) {
            if (!definition.fenceTransaction()) {
                continue;
            }
            if (transactionFence == null) {
                transactionFence = fence.get();
                if (transactionFence == null) {
                    throw new InvalidDistributedLockException(definition.method(), NO_FENCE, null);
                }
            }
            String problem =
                    transactionFence.check(definition.key().specificMethod(), definition.targetClass(), beanFactory);
            if (problem != null) {
                throw new InvalidDistributedLockException(definition.method(), problem, null);
            }
        }
    }
}
