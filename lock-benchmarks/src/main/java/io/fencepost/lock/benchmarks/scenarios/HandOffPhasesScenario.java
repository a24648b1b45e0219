package io.fencepost.lock.benchmarks.scenarios;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Pools;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.clients.LockClient;
import io.fencepost.lock.benchmarks.clients.Nodes;
import io.fencepost.lock.benchmarks.wire.StatementTimeline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where the time of one hand-off between two nodes goes: two nodes of one library (each its own client and pool, as
 * in the nodes scenario, both in this JVM) take turns on one key, and every statement either node's thread runs is
 * timed on the client ({@link StatementTimeline}). Each hand-off is then cut at its statements: the release statement
 * being sent, the waiter's blocked statement returning, the grant statement being sent and returning, the critical
 * section. Fencepost against the durable floor, whose hand-off is the same three statements (release, the waiter's
 * lock-queue wait, a durable grant) with nothing else.
 */
public final class HandOffPhasesScenario {

    private static final int NODES = 2;

    private final Harness harness;

    public HandOffPhasesScenario(Harness harness) {
        this.harness = harness;
    }

    public Series<HandOffPhases> run() throws Exception {
        return Rounds.run(
                harness,
                "hand-off-phases",
                harness.libraries(
                        Library.FENCEPOST,
                        Library.DURABLE_FLOOR,
                        Library.DURABLE_FLOOR_KEYED,
                        Library.DURABLE_FLOOR_ENDING),
                (library, round) -> measure(library),
                HandOffPhases::show);
    }

    private HandOffPhases measure(Library library) throws Exception {
        Settings settings = harness.settings();
        String key = "bench:" + library.id() + ":hand-off-phases";
        Duration window = settings.nodesWindow();
        StatementTimeline timeline = new StatementTimeline();
        List<HikariDataSource> pools = new ArrayList<>();
        List<LockClient> clients = new ArrayList<>();
        try {
            for (int node = 0; node < NODES; node++) {
                HikariDataSource pool = Pools.open(
                        settings.jdbcUrl(settings.database()),
                        settings.pgUser(),
                        Harness.POOL_NAME + "-phases-" + node,
                        Nodes.connectionsPerNode(library));
                pools.add(pool);
                clients.add(library.open(harness.context().withDataSource(timeline.wrap(pool))));
            }
            ConcurrentLinkedQueue<HandOffPhases.Section> sections = new ConcurrentLinkedQueue<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            harness.jit().awaitQuiet();
            long end = System.nanoTime() + window.toNanos();
            List<Thread> threads = new ArrayList<>();
            for (int node = 0; node < NODES; node++) {
                int self = node;
                LockClient client = clients.get(node);
                Thread thread = new Thread(
                        () -> {
                            try {
                                while (System.nanoTime() < end) {
                                    LockClient.Held held = client.acquire(key, window);
                                    if (held == null) {
                                        continue;
                                    }
                                    long start = System.nanoTime();
                                    long release = System.nanoTime();
                                    held.release();
                                    sections.add(new HandOffPhases.Section(self, start, release, System.nanoTime()));
                                }
                            } catch (Throwable e) {
                                failure.compareAndSet(null, e);
                            }
                        },
                        "hand-off-node-" + node);
                timeline.record(thread);
                threads.add(thread);
            }
            threads.forEach(Thread::start);
            for (Thread thread : threads) {
                thread.join();
            }
            if (failure.get() != null) {
                throw new IllegalStateException(library.id() + " failed in the hand-off phases", failure.get());
            }
            List<HandOffPhases.Section> ordered = new ArrayList<>(sections);
            ordered.sort(Comparator.comparingLong(HandOffPhases.Section::startNanos));
            List<List<StatementTimeline.Call>> calls = new ArrayList<>();
            threads.forEach(thread -> calls.add(timeline.calls(thread)));
            return HandOffPhases.of(ordered, calls, window.toNanos() / 1e9);
        } finally {
            clients.forEach(LockClient::close);
            pools.forEach(HikariDataSource::close);
        }
    }
}
