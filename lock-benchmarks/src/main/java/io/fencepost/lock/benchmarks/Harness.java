package io.fencepost.lock.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.benchmarks.clients.ClientContext;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.clients.LockClient;
import java.io.IOException;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What the scenarios of one run share in this JVM: the settings, the database, one pool, and one client per library
 * (opened on first use, as an application would hold one).
 */
public final class Harness implements AutoCloseable {

    /** The pool name, also the PostgreSQL application name of its connections. */
    public static final String POOL_NAME = "fencepost-bench";

    private final Settings settings;

    private final BenchDatabase database;

    private final HikariDataSource pool;

    private final ClientContext context;

    /** The Redis with every write fsynced, for the one scenario that compares Redisson on it; null otherwise. */
    private final FsyncRedis fsyncRedis;

    private final Map<Library, LockClient> clients = new EnumMap<>(Library.class);

    private final long started = System.nanoTime();

    private final JitActivity jit = new JitActivity();

    public Harness(Settings settings, BenchDatabase database) throws IOException, InterruptedException {
        this.settings = settings;
        this.database = database;
        this.pool = Pools.open(
                settings.jdbcUrl(settings.database()), settings.pgUser(), POOL_NAME + "-main", Pools.MAX_SIZE);
        try {
            this.fsyncRedis = startFsyncRedis();
        } catch (IOException | InterruptedException | RuntimeException e) {
            pool.close();
            throw e;
        }
        this.context = new ClientContext(
                pool,
                settings.redisHost(),
                settings.redisPort(),
                ClientContext.LEASE_TIME,
                fsyncRedis == null ? 0 : fsyncRedis.port());
    }

    private FsyncRedis startFsyncRedis() throws IOException, InterruptedException {
        Library library = Library.REDISSON_FSYNC;
        if (!settings.uses(library) || !settings.runs(Settings.Scenario.NODES)) {
            return null;
        }
        if (!library.isAvailable()) {
            log(library.id() + " " + library.unavailable());
            return null;
        }
        FsyncRedis redis = FsyncRedis.start(settings.redisHost());
        log("second Redis for " + library.id() + " on " + settings.redisHost() + ":" + redis.port()
                + " (appendonly yes, appendfsync always)");
        return redis;
    }

    public Settings settings() {
        return settings;
    }

    public BenchDatabase database() {
        return database;
    }

    public ClientContext context() {
        return context;
    }

    /** The client of this JVM for {@code library}. */
    public synchronized LockClient client(Library library) {
        return clients.computeIfAbsent(library, l -> l.open(context));
    }

    /** The selected libraries among {@code candidates}, in the order given. */
    public List<Library> libraries(Library... candidates) {
        List<Library> chosen = new ArrayList<>();
        for (Library library : candidates) {
            if (settings.uses(library) && library.isAvailable()) {
                chosen.add(library);
            }
        }
        return chosen;
    }

    /** The JIT compilers' work so far, in this JVM and in the second JVM of the scenario running. */
    public JitActivity jit() {
        return jit;
    }

    /** Progress on standard error, with the elapsed time. */
    public void log(String message) {
        long seconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();
        System.err.printf("[%s +%3ds] %s%n", LocalTime.now().truncatedTo(ChronoUnit.SECONDS), seconds, message);
    }

    public Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - started);
    }

    @Override
    public void close() {
        for (LockClient client : clients.values()) {
            try {
                client.close();
            } catch (RuntimeException e) {
                log("closing a client failed: " + e);
            }
        }
        pool.close();
        if (fsyncRedis != null) {
            fsyncRedis.close();
        }
    }
}
