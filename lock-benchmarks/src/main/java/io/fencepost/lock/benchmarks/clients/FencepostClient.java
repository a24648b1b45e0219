package io.fencepost.lock.benchmarks.clients;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.PostgresLockManager;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fencepost as its README shows it: one {@link PostgresLockManager} per application, default settings; optionally
 * with fair mode, where the version under test has it.
 */
public final class FencepostClient implements LockClient {

    private final PostgresLockManager locks;

    private final Duration leaseTime;

    private final boolean fair;

    private final Map<Duration, LockOptions> options = new ConcurrentHashMap<>();

    public FencepostClient(ClientContext context) {
        this(context, false);
    }

    /**
     * @throws UnsupportedOperationException when {@code fair} is asked of a version without fair mode
     */
    public FencepostClient(ClientContext context, boolean fair) {
        if (fair && !supportsFairMode()) {
            throw new UnsupportedOperationException("this version of Fencepost has no fair mode");
        }
        this.leaseTime = context.leaseTime();
        this.fair = fair;
        this.locks = PostgresLockManager.builder(context.dataSource()).build();
    }

    /**
     * Whether {@code LockOptions.Builder.fair(boolean)} exists. Looked up rather than called directly, so that the
     * harness builds against versions before and after it.
     */
    public static boolean supportsFairMode() {
        try {
            LockOptions.Builder.class.getMethod("fair", boolean.class);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    public LockManager manager() {
        return locks;
    }

    @Override
    public Held acquire(String key, Duration wait) {
        return held(locks.tryAcquire(key, options(wait)));
    }

    @Override
    public Held tryAcquire(String key) {
        return held(locks.tryAcquire(key, options(Duration.ZERO)));
    }

    private LockOptions options(Duration wait) {
        LockOptions cached = options.get(wait);
        if (cached != null) {
            return cached;
        }
        // The contended scenario's waits shrink towards the end of its window: cache only the few fixed ones.
        return options.size() >= 8 ? build(wait) : options.computeIfAbsent(wait, this::build);
    }

    private LockOptions build(Duration wait) {
        LockOptions.Builder builder = LockOptions.builder().leaseTime(leaseTime).waitTime(wait);
        if (fair) {
            try {
                builder = (LockOptions.Builder) LockOptions.Builder.class
                        .getMethod("fair", boolean.class)
                        .invoke(builder, true);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("could not switch on fair mode", e);
            }
        }
        return builder.build();
    }

    private static Held held(Optional<Lease> lease) {
        return lease.<Held>map(l -> l::release).orElse(null);
    }

    @Override
    public void close() {
        locks.close();
    }
}
