package io.fencepost.lock.benchmarks.clients;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.PostgresLockManager;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * Fencepost as its README shows it: one {@link PostgresLockManager} per application, default settings; optionally
 * with fair mode, where the version under test has it, or taking shared leases or permits instead of exclusive ones.
 */
public final class FencepostClient implements LockClient, ExtendableClient {

    private final PostgresLockManager locks;

    private final Duration leaseTime;

    private final boolean fair;

    /** What the options of every call add: shared leases or permits; nothing for exclusive leases. */
    private final UnaryOperator<LockOptions.Builder> mode;

    private final Map<Duration, LockOptions> options = new ConcurrentHashMap<>();

    public FencepostClient(ClientContext context) {
        this(context, false);
    }

    /**
     * @throws UnsupportedOperationException when {@code fair} is asked of a version without fair mode
     */
    public FencepostClient(ClientContext context, boolean fair) {
        this(context, fair, UnaryOperator.identity());
    }

    private FencepostClient(ClientContext context, boolean fair, UnaryOperator<LockOptions.Builder> mode) {
        if (fair && !supportsFairMode()) {
            throw new UnsupportedOperationException("this version of Fencepost has no fair mode");
        }
        this.leaseTime = context.leaseTime();
        this.fair = fair;
        this.mode = mode;
        this.locks = PostgresLockManager.builder(context.dataSource()).build();
    }

    /** Every lease a shared one ({@code LockOptions.shared(true)}). */
    public static FencepostClient shared(ClientContext context) {
        return new FencepostClient(context, false, b -> b.shared(true));
    }

    /** Every lease one of {@code n} permits of its key ({@code LockOptions.permits(n)}). */
    public static FencepostClient permits(ClientContext context, int n) {
        return new FencepostClient(context, false, b -> b.permits(n));
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
        LockOptions.Builder builder =
                mode.apply(LockOptions.builder().leaseTime(leaseTime).waitTime(wait));
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

    @Override
    public Extendable hold(String key) {
        Lease lease = locks.tryAcquire(key, options(Duration.ZERO))
                .orElseThrow(() -> new IllegalStateException("Fencepost did not get the free key '" + key + "'"));
        return new Extendable() {
            @Override
            public boolean extend(Duration time) {
                return lease.extend(time);
            }

            @Override
            public void release() {
                lease.release();
            }
        };
    }

    private static Held held(Optional<Lease> lease) {
        return lease.<Held>map(l -> l::release).orElse(null);
    }

    @Override
    public void close() {
        locks.close();
    }
}
