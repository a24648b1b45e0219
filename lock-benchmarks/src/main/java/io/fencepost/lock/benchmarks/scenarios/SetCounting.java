package io.fencepost.lock.benchmarks.scenarios;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.benchmarks.BenchDatabase;
import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Pools;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.LockClient;
import io.fencepost.lock.benchmarks.clients.SetClient;
import io.fencepost.lock.benchmarks.clients.SetVariant;
import io.fencepost.lock.benchmarks.wire.CountingSocketFactory;
import io.fencepost.lock.benchmarks.wire.WireCounter;
import io.fencepost.lock.benchmarks.wire.WireCounts;
import java.util.List;

/**
 * Counts what an uncontended cycle of a set sends and what it makes PostgreSQL flush, the way the counting scenario
 * does for one key: statements and round trips inside the JDBC driver's socket (those of the acquire apart from
 * those of the release), WAL flushes from {@code pg_stat_wal}. A backend reports its statistics when it exits, so the
 * flushes are those of a pass with a fresh pool closed at its end, minus those of a pass that only sets up. That view
 * counts the whole cluster: when other databases had rows written meanwhile, the passes run once more, and if others
 * wrote again the flushes are left uncounted.
 */
final class SetCounting {

    private static final String POOL = Harness.POOL_NAME + "-sets-count";

    private static final int WARM_UP = 20;

    /** Tries at counting WAL flushes while nobody else writes, before giving up on them. */
    private static final int ATTEMPTS = 2;

    private final Harness harness;

    SetCounting(Harness harness) {
        this.harness = harness;
    }

    /** One pass's work with a client on a fresh counted pool. */
    @FunctionalInterface
    private interface Work {
        void run(SetClient client) throws Exception;
    }

    SetCounts count(SetVariant variant, List<String> keys) throws Exception {
        int cycles = harness.settings().countedCycles();
        WireCounter counter = CountingSocketFactory.COUNTER;
        BenchDatabase db = harness.database();
        long[] acquireStatements = new long[1];
        WireCounts[] wire = new WireCounts[1];
        double walFlushes = Double.NaN;
        long writtenElsewhere = 0;
        for (int attempt = 0; attempt < ATTEMPTS && Double.isNaN(walFlushes); attempt++) {
            long othersBefore = db.rowsWrittenElsewhere();
            acquireStatements[0] = 0;
            BenchDatabase.ServerCounts withCycles = pass(variant, client -> {
                cycles(client, keys, WARM_UP, counter, new long[1]);
                counter.reset();
                cycles(client, keys, cycles, counter, acquireStatements);
                wire[0] = counter.counts();
            });
            BenchDatabase.ServerCounts setupOnly =
                    pass(variant, client -> cycles(client, keys, WARM_UP, counter, new long[1]));
            writtenElsewhere = db.rowsWrittenElsewhere() - othersBefore;
            // Every row written elsewhere may have cost a flush: past one per ten cycles, the count is not ours.
            if (writtenElsewhere <= cycles / 10) {
                walFlushes = (double) withCycles.minus(setupOnly).walSyncs() / cycles;
            }
        }
        return new SetCounts(
                (double) acquireStatements[0] / cycles,
                (double) (wire[0].statements() - acquireStatements[0]) / cycles,
                (double) wire[0].roundTrips() / cycles,
                wire[0].breakdown(cycles),
                walFlushes,
                writtenElsewhere);
    }

    private BenchDatabase.ServerCounts pass(SetVariant variant, Work work) throws Exception {
        Settings settings = harness.settings();
        BenchDatabase db = harness.database();
        db.awaitDisconnected(POOL);
        BenchDatabase.ServerCounts before = db.serverCounts();
        String url = settings.jdbcUrl(settings.database()) + "&" + CountingSocketFactory.URL_PARAMETER;
        try (HikariDataSource pool = Pools.open(url, settings.pgUser(), POOL, 4)) {
            CountingScenario.awaitFilled(pool);
            try (SetClient client = variant.open(harness.context().withDataSource(pool))) {
                work.run(client);
            }
        }
        db.awaitDisconnected(POOL);
        return db.serverCounts().minus(before);
    }

    /** {@code n} cycles, adding the statements sent while acquiring to {@code acquireStatements[0]}. */
    private static void cycles(
            SetClient client, List<String> keys, int n, WireCounter counter, long[] acquireStatements)
            throws Exception {
        for (int i = 0; i < n; i++) {
            long before = counter.counts().statements();
            LockClient.Held held = client.acquire(keys, UncontendedScenario.WAIT);
            acquireStatements[0] += counter.counts().statements() - before;
            if (held == null) {
                throw new IllegalStateException("did not get the free set " + keys);
            }
            held.release();
        }
    }
}
