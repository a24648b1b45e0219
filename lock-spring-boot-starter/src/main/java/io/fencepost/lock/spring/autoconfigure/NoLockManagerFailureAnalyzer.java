package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.spring.aop.NoLockManagerException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains {@code @DistributedLock} methods without a lock manager: usually a missing {@code DataSource}. */
final class NoLockManagerFailureAnalyzer extends AbstractFailureAnalyzer<NoLockManagerException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, NoLockManagerException cause) {
        return new FailureAnalysis(
                "@DistributedLock is used on " + cause.methods() + " but the application has no LockManager to lock"
                        + " them with. Fencepost creates one on the application's DataSource, and there is no"
                        + " DataSource bean.",
                "Configure a DataSource for PostgreSQL (for example spring.datasource.url) or mark a dedicated one"
                        + " with @LockDataSource, or define a LockManager bean of your own (in tests, for example,"
                        + " DefaultLockManager over the InMemoryLeaseStore of io.fencepost:lock-test-support). Rather"
                        + " than run these methods unlocked,"
                        + " Fencepost refuses to start.",
                cause);
    }
}
