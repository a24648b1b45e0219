package io.fencepost.lock.benchmarks.clients;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.MultiLease;
import io.fencepost.lock.jdbc.PostgresLockManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A set of keys with Fencepost, one {@link PostgresLockManager} per client (default settings): either all keys in one
 * call ({@link LockManager#tryAcquireAll}), or one {@link LockManager#tryAcquire} per key in sorted key order, as a
 * careful user without {@code acquireAll} must take them (two such users taking overlapping sets in different orders
 * would otherwise deadlock until their waits run out).
 */
public final class FencepostSetClient implements SetClient {

    private final PostgresLockManager locks;

    private final Duration leaseTime;

    private final boolean together;

    /** The options of the latest call: the uncontended cycles all wait the same, so they build them once. */
    private LockOptions options;

    private FencepostSetClient(DataSource dataSource, Duration leaseTime, boolean together) {
        this.locks = PostgresLockManager.builder(dataSource).build();
        this.leaseTime = leaseTime;
        this.together = together;
        this.options = LockOptions.builder().leaseTime(leaseTime).build();
    }

    /** {@code acquireAll}: the whole set in one call. */
    public static FencepostSetClient together(ClientContext context) {
        return new FencepostSetClient(context.dataSource(), context.leaseTime(), true);
    }

    /** One {@code acquire} per key, in sorted key order. */
    public static FencepostSetClient oneByOne(ClientContext context) {
        return new FencepostSetClient(context.dataSource(), context.leaseTime(), false);
    }

    @Override
    public LockClient.Held acquire(List<String> keys, Duration wait) {
        LockOptions options = options(wait);
        if (together) {
            Optional<MultiLease> set = locks.tryAcquireAll(keys, options);
            return set.<LockClient.Held>map(s -> s::release).orElse(null);
        }
        List<Lease> held = new ArrayList<>(keys.size());
        for (String key : keys.stream().sorted().toList()) {
            Optional<Lease> lease = locks.tryAcquire(key, options);
            if (lease.isEmpty()) {
                held.forEach(Lease::release);
                return null;
            }
            held.add(lease.get());
        }
        return () -> held.forEach(Lease::release);
    }

    private LockOptions options(Duration wait) {
        if (!options.waitTime().equals(wait)) {
            options = LockOptions.builder().leaseTime(leaseTime).waitTime(wait).build();
        }
        return options;
    }

    @Override
    public void close() {
        locks.close();
    }
}
