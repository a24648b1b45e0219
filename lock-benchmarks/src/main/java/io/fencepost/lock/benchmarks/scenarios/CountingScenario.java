package io.fencepost.lock.benchmarks.scenarios;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.benchmarks.BenchDatabase;
import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Pools;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.ClientContext;
import io.fencepost.lock.benchmarks.clients.ExtendableClient;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.clients.LockClient;
import io.fencepost.lock.benchmarks.wire.CountingProxy;
import io.fencepost.lock.benchmarks.wire.CountingSocketFactory;
import io.fencepost.lock.benchmarks.wire.RedisInfo;
import io.fencepost.lock.benchmarks.wire.WireCounter;
import io.fencepost.lock.benchmarks.wire.WireCounts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * Counts, for each library, the statements and round trips of an uncontended cycle, a losing attempt and a
 * reentrant acquire (for shared leases and permits: the cycle only, one holder on a free key), and an extension of a
 * held lease where the library has one: on the client's wire (inside the JDBC driver's socket for PostgreSQL, through a proxy for Redis)
 * and, for cycles, from the server's own statistics. PostgreSQL reports a backend's statistics when it exits, so
 * each count is a pass with a fresh pool that is closed at its end, minus a pass that only sets the client up.
 */
public final class CountingScenario {

    private static final String POOL = Harness.POOL_NAME + "-count";

    private static final int WARM_UP = 20;

    private static final int LOSING_TRIES = 50;

    private static final int REENTRANT = 50;

    private static final int EXTENDS = 50;

    /** Libraries with an owner-checked call that moves the end of a held lease (the extend scenario's). */
    private static final Set<Library> EXTENDABLE = Set.copyOf(ExtendScenario.LIBRARIES);

    /** Libraries whose lock the holding thread can take again (through the same client) without blocking. */
    private static final Set<Library> REENTRANT_LIBRARIES =
            Set.of(Library.FENCEPOST, Library.SPRING_INTEGRATION, Library.REDISSON);

    private final Harness harness;

    public CountingScenario(Harness harness) {
        this.harness = harness;
    }

    public List<CountingResult> run() throws Exception {
        List<CountingResult> results = new ArrayList<>();
        for (Library library : harness.libraries(Library.values())) {
            // Fair mode sends the same statements uncontended; shared leases and permits have statements of their own.
            if (library.isEvidence() || (library.isVariant() && library.isExclusive())) {
                continue;
            }
            CountingResult result = library.onRedis() ? countRedis(library) : countPostgres(library);
            harness.log("counting " + library.id()
                    + ": %.2f statements, %.2f round trips per cycle (%s); server %.2f"
                            .formatted(
                                    result.statementsPerCycle(),
                                    result.roundTripsPerCycle(),
                                    result.cycleBreakdown(),
                                    library.onRedis()
                                            ? result.serverCommandsPerCycle()
                                            : result.serverTransactionsPerCycle()));
            results.add(result);
        }
        return results;
    }

    /** One pass: a fresh counted pool, a fresh client, some work, everything closed. */
    @FunctionalInterface
    private interface Pass {
        void run(LockClient client, WireCounter counter) throws Exception;
    }

    private BenchDatabase.ServerCounts pass(Library library, Pass work) throws Exception {
        Settings settings = harness.settings();
        BenchDatabase db = harness.database();
        db.awaitDisconnected(POOL);
        BenchDatabase.ServerCounts before = db.serverCounts();
        String url = settings.jdbcUrl(settings.database()) + "&" + CountingSocketFactory.URL_PARAMETER;
        try (HikariDataSource pool = Pools.open(url, settings.pgUser(), POOL, 4)) {
            awaitFilled(pool);
            LockClient client = library.open(context(pool));
            try {
                work.run(client, CountingSocketFactory.COUNTER);
            } finally {
                client.close();
            }
        }
        db.awaitDisconnected(POOL);
        return db.serverCounts().minus(before);
    }

    /** Waits until the pool has opened its minimum of connections, so that none is opened while counting. */
    static void awaitFilled(HikariDataSource pool) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (pool.getHikariPoolMXBean().getTotalConnections() < pool.getMinimumIdle()
                && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }

    private CountingResult countPostgres(Library library) throws Exception {
        Settings settings = harness.settings();
        int cycles = settings.countedCycles();
        // A first pass that is not counted: whatever a library does only once per database (create its schema, its
        // first row) must not land in one of the two passes that are subtracted and not in the other.
        pass(library, (client, counter) -> cycles(client, library, WARM_UP));
        WireCounts[] wire = new WireCounts[1];
        BenchDatabase.ServerCounts withCycles = pass(library, (client, counter) -> {
            cycles(client, library, WARM_UP);
            counter.reset();
            cycles(client, library, cycles);
            wire[0] = counter.counts();
        });
        BenchDatabase.ServerCounts setupOnly = pass(library, (client, counter) -> cycles(client, library, WARM_UP));
        BenchDatabase.ServerCounts perCycles = withCycles.minus(setupOnly);
        WireCounts[] losing = new WireCounts[1];
        double[] reentrant = {Double.NaN};
        if (library.isLock() && library.isExclusive()) {
            pass(library, (client, counter) -> {
                // The holder of the busy key has its own pool (not counted) under the same name, so that its
                // backends too are gone, and have reported, before the next library is counted.
                try (HikariDataSource holderPool =
                                Pools.open(settings.jdbcUrl(settings.database()), settings.pgUser(), POOL, 2);
                        LockClient holder = library.open(context(holderPool))) {
                    losing[0] = losing(client, holder, library, counter);
                }
                reentrant[0] = reentrant(client, library, counter);
            });
        }
        WireCounts[] extensions = new WireCounts[1];
        if (EXTENDABLE.contains(library)) {
            pass(library, (client, counter) -> extensions[0] = extensions(client, library, counter));
        }
        return new CountingResult(
                library,
                (double) wire[0].statements() / cycles,
                (double) wire[0].roundTrips() / cycles,
                wire[0].breakdown(cycles),
                (double) perCycles.transactions() / cycles,
                Double.NaN,
                "",
                (double) perCycles.walSyncs() / cycles,
                (double) perCycles.walBytes() / cycles,
                losing[0] == null ? Double.NaN : (double) losing[0].statements() / LOSING_TRIES,
                losing[0] == null ? Double.NaN : (double) losing[0].roundTrips() / LOSING_TRIES,
                losing[0] == null ? "" : losing[0].breakdown(LOSING_TRIES),
                reentrant[0],
                perExtend(extensions[0], WireCounts::statements),
                perExtend(extensions[0], WireCounts::roundTrips),
                extensions[0] == null ? "" : extensions[0].breakdown(EXTENDS));
    }

    private CountingResult countRedis(Library library) throws Exception {
        Settings settings = harness.settings();
        int cycles = settings.countedCycles();
        RedisInfo info = new RedisInfo(settings.redisHost(), settings.redisPort());
        try (CountingProxy proxy = new CountingProxy(settings.redisHost(), settings.redisPort())) {
            WireCounter counter = proxy.counter();
            LockClient client = library.open(new ClientContext(
                    harness.context().dataSource(), proxy.host(), proxy.port(), ClientContext.LEASE_TIME));
            try {
                cycles(client, library, WARM_UP);
                counter.reset();
                Map<String, Long> before = info.commandCalls();
                cycles(client, library, cycles);
                Map<String, Long> server = RedisInfo.delta(info.commandCalls(), before);
                WireCounts wire = counter.counts();
                WireCounts losing = null;
                if (library.isExclusive()) {
                    try (LockClient holder = library.open(harness.context())) {
                        losing = losing(client, holder, library, counter);
                    }
                }
                double reentrant = reentrant(client, library, counter);
                WireCounts extensions = extensions(client, library, counter);
                long commands =
                        server.values().stream().mapToLong(Long::longValue).sum();
                return new CountingResult(
                        library,
                        (double) wire.statements() / cycles,
                        (double) wire.roundTrips() / cycles,
                        wire.breakdown(cycles),
                        Double.NaN,
                        (double) commands / cycles,
                        server.entrySet().stream()
                                .map(e -> e.getKey() + " ×" + "%.2f".formatted((double) e.getValue() / cycles))
                                .collect(Collectors.joining(", ")),
                        Double.NaN,
                        Double.NaN,
                        losing == null ? Double.NaN : (double) losing.statements() / LOSING_TRIES,
                        losing == null ? Double.NaN : (double) losing.roundTrips() / LOSING_TRIES,
                        losing == null ? "" : losing.breakdown(LOSING_TRIES),
                        reentrant,
                        perExtend(extensions, WireCounts::statements),
                        perExtend(extensions, WireCounts::roundTrips),
                        extensions == null ? "" : extensions.breakdown(EXTENDS));
            } finally {
                client.close();
            }
        }
    }

    private ClientContext context(DataSource pool) {
        Settings settings = harness.settings();
        return new ClientContext(pool, settings.redisHost(), settings.redisPort(), ClientContext.LEASE_TIME);
    }

    private static void cycles(LockClient client, Library library, int n) throws Exception {
        String key = "bench:" + library.id() + ":counted";
        for (int i = 0; i < n; i++) {
            LockClient.Held held = client.acquire(key, Duration.ofSeconds(10));
            if (held == null) {
                throw new IllegalStateException(library.id() + " did not get the free key '" + key + "'");
            }
            held.release();
        }
    }

    /** Attempts on a key another client holds (another instance of the library, on another thread). */
    private static WireCounts losing(LockClient client, LockClient holder, Library library, WireCounter counter)
            throws Exception {
        String key = "bench:" + library.id() + ":counted-busy";
        try (HeldElsewhere busy = new HeldElsewhere(holder, key)) {
            client.tryAcquire(busy.key()); // the first attempt may prepare statements or subscribe: not counted
            counter.reset();
            for (int i = 0; i < LOSING_TRIES; i++) {
                LockClient.Held held = client.tryAcquire(busy.key());
                if (held != null) {
                    held.release();
                    throw new IllegalStateException(library.id() + " took a key another client holds");
                }
            }
            return counter.counts();
        }
    }

    /** What {@value #EXTENDS} extensions of a held lease sent; null when the library has no such call. */
    private static WireCounts extensions(LockClient client, Library library, WireCounter counter) throws Exception {
        if (!EXTENDABLE.contains(library)) {
            return null;
        }
        ExtendableClient.Extendable lease = ((ExtendableClient) client).hold("bench:" + library.id() + ":extended");
        try {
            lease.extend(ClientContext.LEASE_TIME); // the first call may prepare its statement: not counted
            counter.reset();
            for (int i = 0; i < EXTENDS; i++) {
                if (!lease.extend(ClientContext.LEASE_TIME)) {
                    throw new IllegalStateException(library.id() + " refused to extend a lease it holds");
                }
            }
            return counter.counts();
        } finally {
            lease.release();
        }
    }

    private static double perExtend(WireCounts counts, java.util.function.ToLongFunction<WireCounts> metric) {
        return counts == null ? Double.NaN : (double) metric.applyAsLong(counts) / EXTENDS;
    }

    /** Round trips of a nested acquire + release while the same thread holds the key. */
    private static double reentrant(LockClient client, Library library, WireCounter counter) throws Exception {
        if (!REENTRANT_LIBRARIES.contains(library)) {
            return Double.NaN;
        }
        String key = "bench:" + library.id() + ":reentrant";
        LockClient.Held outer = client.acquire(key, Duration.ofSeconds(10));
        try {
            counter.reset();
            for (int i = 0; i < REENTRANT; i++) {
                LockClient.Held inner = client.acquire(key, Duration.ofSeconds(10));
                if (inner == null) {
                    throw new IllegalStateException(library.id() + " refused a reentrant acquire");
                }
                inner.release();
            }
            return (double) counter.counts().roundTrips() / REENTRANT;
        } finally {
            outer.release();
        }
    }
}
