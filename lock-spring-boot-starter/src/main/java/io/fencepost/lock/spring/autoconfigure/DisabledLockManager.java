package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.MultiLease;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * What {@code @DistributedLock} locks with when {@code fencepost.enabled=false}: a lock that is never available, so
 * that annotated methods fail closed instead of running unlocked. Not a bean: with locking disabled the application
 * has no {@link LockManager}.
 */
final class DisabledLockManager implements LockManager {

    private static final Log logger = LogFactory.getLog(DisabledLockManager.class);

    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    @Override
    public Lease acquire(String key, LockOptions options) {
        warnOnce(options);
        throw new LockNotAcquiredException(key, message(key));
    }

    @Override
    public Optional<Lease> tryAcquire(String key, LockOptions options) {
        warnOnce(options);
        return Optional.empty();
    }

    @Override
    public MultiLease acquireAll(Collection<String> keys, LockOptions options) {
        warnOnce(options);
        String key = keys.isEmpty() ? "" : keys.iterator().next();
        throw new LockNotAcquiredException(key, message(String.valueOf(keys)));
    }

    @Override
    public Optional<MultiLease> tryAcquireAll(Collection<String> keys, LockOptions options) {
        warnOnce(options);
        return Optional.empty();
    }

    @Override
    public Optional<LeaseInfo> inspect(String key) {
        return Optional.empty();
    }

    /** Once per lock name (low-cardinality, unlike keys), so that a frequent job does not flood the log. */
    private void warnOnce(LockOptions options) {
        if (warned.add(options.name())) {
            logger.warn("@DistributedLock '" + options.name() + "' did not run because fencepost.enabled=false;"
                    + " annotated methods never run while locking is disabled (logged once per lock name)");
        }
    }

    private static String message(String key) {
        return "lock '" + key + "' not acquired: distributed locking is disabled (fencepost.enabled=false), so"
                + " @DistributedLock methods do not run; remove the setting to lock with PostgreSQL, or define a"
                + " LockManager bean (in tests, for example DefaultLockManager over the InMemoryLeaseStore of"
                + " io.fencepost:lock-test-support)";
    }
}
