package io.fencepost.lock;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Optional;

/**
 * The leases the current thread holds through {@link LockManager#withLock} or {@code @DistributedLock}, so that
 * code deep in a call can read the fencing token or check the lease before a side effect.
 */
public final class LockContext {

    private static final ThreadLocal<Deque<Lease>> LEASES = ThreadLocal.withInitial(ArrayDeque::new);

    private LockContext() {}

    /** The innermost lease the current thread holds through {@code withLock} or the annotation. */
    public static Optional<Lease> current() {
        return Optional.ofNullable(LEASES.get().peekFirst());
    }

    /** The innermost such lease on {@code key}. */
    public static Optional<Lease> current(String key) {
        for (Iterator<Lease> it = LEASES.get().iterator(); it.hasNext(); ) {
            Lease lease = it.next();
            if (lease.key().equals(key)) {
                return Optional.of(lease);
            }
        }
        return Optional.empty();
    }

    /**
     * Runs {@code work} with {@code lease} as the current thread's innermost lease. For integrations (such as
     * the Spring advisor) that acquire the lease themselves; {@link LockManager#withLock} calls this.
     */
    public static <T> T callWith(Lease lease, LockedCallable<T> work) throws Exception {
        Deque<Lease> leases = LEASES.get();
        leases.push(lease);
        try {
            return work.call(lease);
        } finally {
            leases.pop();
            if (leases.isEmpty()) {
                LEASES.remove();
            }
        }
    }
}
