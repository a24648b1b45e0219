package io.fencepost.lock.benchmarks.clients;

import io.fencepost.lock.benchmarks.FsyncRedis;
import io.fencepost.lock.jdbc.PostgresLockManager;
import java.util.Arrays;
import java.util.function.Function;
import java.util.function.Supplier;
import net.javacrumbs.shedlock.core.LockProvider;
import org.redisson.Redisson;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;

/** The libraries (and baselines) under test, with how each one's client is opened. */
public enum Library {
    SELECT_ONE("select-1", "`SELECT 1` round trip", () -> "PostgreSQL", SelectOneClient::new, false),
    RAW(
            "raw",
            "raw SQL ceiling, durable",
            () -> "INSERT … ON CONFLICT + DELETE",
            c -> new RawSqlClient(c, false),
            true),
    RAW_ASYNC(
            "raw-async",
            "raw SQL, async release",
            () -> "same, release with synchronous_commit=off",
            c -> new RawSqlClient(c, true),
            true),
    RAW_INSERT(
            "raw-insert",
            "bare `INSERT … ON CONFLICT DO NOTHING`",
            () -> "INSERT … ON CONFLICT DO NOTHING + DELETE, no lease or fencing token",
            RawSqlClient::bareInsert,
            true),
    FENCEPOST(
            "fencepost",
            "Fencepost",
            () -> "Fencepost " + Versions.of(PostgresLockManager.class),
            FencepostClient::new,
            true),
    FENCEPOST_FAIR(
            "fencepost-fair",
            "Fencepost, fair mode",
            () -> "Fencepost " + Versions.of(PostgresLockManager.class) + " with LockOptions fair(true)",
            c -> new FencepostClient(c, true),
            true),
    FENCEPOST_STORE(
            "fencepost-store",
            "Fencepost's store alone (no engine)",
            () -> "PostgresLeaseStore of Fencepost " + Versions.of(PostgresLockManager.class)
                    + ", called directly: where the time goes",
            FencepostStoreClient::new,
            true),
    SHEDLOCK(
            "shedlock",
            "ShedLock JdbcTemplate, usingDbTime",
            () -> "ShedLock " + Versions.of(LockProvider.class),
            ShedLockClient::new,
            true),
    SPRING_INTEGRATION(
            "spring-integration",
            "Spring Integration JdbcLockRegistry",
            () -> "Spring Integration " + Versions.of(JdbcLockRegistry.class),
            SpringIntegrationClient::new,
            true),
    REDISSON(
            "redisson",
            "Redisson RLock (Redis, nothing persisted)",
            () -> "Redisson " + Versions.of(Redisson.class),
            RedissonLockClient::new,
            true),
    ADVISORY(
            "advisory",
            "`pg_advisory_lock` (nothing persisted)",
            () -> "PostgreSQL session advisory lock",
            AdvisoryLockClient::new,
            true),
    FENCEPOST_SHARED(
            "fencepost-shared",
            "Fencepost, shared lease",
            () -> "Fencepost " + Versions.of(PostgresLockManager.class) + " with LockOptions shared(true)",
            FencepostClient::shared,
            true),
    FENCEPOST_PERMITS(
            "fencepost-permits",
            "Fencepost, permits(" + Library.PERMITS + ")",
            () -> "Fencepost " + Versions.of(PostgresLockManager.class) + " with LockOptions permits(" + Library.PERMITS
                    + ")",
            c -> FencepostClient.permits(c, Library.PERMITS),
            true),
    REDISSON_READ(
            "redisson-read",
            "Redisson RReadWriteLock read lock",
            () -> "Redisson " + Versions.of(Redisson.class) + ", getReadWriteLock(key).readLock(), watchdog on",
            RedissonReadLockClient::new,
            true),
    REDISSON_PERMITS(
            "redisson-expirable-semaphore",
            "Redisson RPermitExpirableSemaphore(" + Library.PERMITS + ")",
            () -> "Redisson " + Versions.of(Redisson.class) + ", getPermitExpirableSemaphore(key), trySetPermits("
                    + Library.PERMITS + "), tryAcquire(wait, 30 s lease)/release(id)",
            c -> RedissonSemaphoreClient.expirable(c, Library.PERMITS),
            true),
    REDISSON_SEMAPHORE(
            "redisson-semaphore",
            "Redisson RSemaphore(" + Library.PERMITS + "), no lease",
            () -> "Redisson " + Versions.of(Redisson.class) + ", getSemaphore(key), trySetPermits(" + Library.PERMITS
                    + "), tryAcquire(wait)/release()",
            c -> RedissonSemaphoreClient.plain(c, Library.PERMITS),
            true),
    DURABLE_FLOOR(
            "durable-floor",
            "durable floor: `pg_advisory_lock` queue + one durable upsert per grant",
            () -> "PostgreSQL session advisory lock to wait, then INSERT … ON CONFLICT DO UPDATE of a lease row with"
                    + " nextval, synchronous_commit on; release pg_advisory_unlock",
            DurableFloorClient::new,
            true),
    DURABLE_FLOOR_KEYED(
            "durable-floor-keyed",
            "durable floor with the token as a key of the row",
            () -> "as the durable floor, on a lease table whose fencing token has a unique index, as Fencepost's does"
                    + " (a grant then changes a key of the row and writes new index entries)",
            DurableFloorClient::keyed,
            true),
    DURABLE_FLOOR_ENDING(
            "durable-floor-ending",
            "durable floor with the token as a key, whose release ends the row",
            () -> "as the durable floor with the token as a key, and the release sets the row's expiry to now"
                    + " (committed asynchronously) in the statement that unlocks, before the unlock, as a lease"
                    + " store's release must end the lease",
            DurableFloorClient::ending,
            true),
    REDISSON_FSYNC(
            "redisson-fsync",
            "Redisson RLock, Redis with appendfsync always",
            () -> "Redisson " + Versions.of(Redisson.class) + " against a second redis-server started by the harness"
                    + " (appendonly yes, appendfsync always, no snapshots)",
            c -> new RedissonLockClient(c.onFsyncRedis()),
            true);

    /** Permits per key wherever a row takes permits (Fencepost's permits, Redisson's semaphores). */
    public static final int PERMITS = 4;

    private final String id;

    private final String label;

    private final Supplier<String> version;

    private final Function<ClientContext, LockClient> factory;

    private final boolean lock;

    Library(
            String id,
            String label,
            Supplier<String> version,
            Function<ClientContext, LockClient> factory,
            boolean lock) {
        this.id = id;
        this.label = label;
        this.version = version;
        this.factory = factory;
        this.lock = lock;
    }

    public static Library byId(String id) {
        return Arrays.stream(values())
                .filter(l -> l.id.equals(id.trim()))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown library '" + id + "', expected one of "
                        + Arrays.stream(values()).map(Library::id).toList()));
    }

    public String id() {
        return id;
    }

    /** The row label in the report. */
    public String label() {
        return label;
    }

    /** What exactly ran, with the version resolved at run time. */
    public String version() {
        return version.get();
    }

    /** Whether this is a lock (rather than the {@code SELECT 1} floor). */
    public boolean isLock() {
        return lock;
    }

    /** Whether this row only explains another (it is not a way to use a library) and so appears only as evidence. */
    public boolean isEvidence() {
        return this == FENCEPOST_STORE;
    }

    /**
     * A variant measured only where it changes something: fair mode in the contended scenario, shared leases and
     * permits in their own scenarios (and their cycles in the counting one), the bare insert as the floor of a losing
     * attempt, the durable floor and Redisson on an fsynced Redis as the durable references of the nodes scenario.
     */
    public boolean isVariant() {
        return this == FENCEPOST_FAIR
                || this == RAW_INSERT
                || this == DURABLE_FLOOR
                || this == DURABLE_FLOOR_KEYED
                || this == DURABLE_FLOOR_ENDING
                || this == REDISSON_FSYNC
                || !isExclusive();
    }

    /** Whether one holder excludes every other (false for shared leases and permits). */
    public boolean isExclusive() {
        return switch (this) {
            case FENCEPOST_SHARED, FENCEPOST_PERMITS, REDISSON_READ, REDISSON_PERMITS, REDISSON_SEMAPHORE -> false;
            default -> true;
        };
    }

    /** Whether the code under test, and this machine, have what this row needs. */
    public boolean isAvailable() {
        return switch (this) {
            case FENCEPOST_FAIR -> FencepostClient.supportsFairMode();
            case REDISSON_FSYNC -> FsyncRedis.binary().isPresent();
            default -> true;
        };
    }

    /** Why this row is not measured, where it is not {@link #isAvailable() available}. */
    public String unavailable() {
        return this == REDISSON_FSYNC
                ? "skipped: no redis-server on the PATH to start a Redis with appendfsync always"
                : "not in this version: not measured";
    }

    /** Whether the library talks to Redis rather than PostgreSQL. */
    public boolean onRedis() {
        return switch (this) {
            case REDISSON, REDISSON_READ, REDISSON_PERMITS, REDISSON_SEMAPHORE, REDISSON_FSYNC -> true;
            default -> false;
        };
    }

    public LockClient open(ClientContext context) {
        return factory.apply(context);
    }
}
