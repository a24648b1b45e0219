package io.fencepost.lock.benchmarks.scenarios;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.clients.Nodes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Nodes on one key, as production contenders usually are: each node a separate application instance (its own client
 * and pool) with one thread, half of the nodes in this JVM and half in the second. Measured like the contended
 * scenario (the same worker loop and the same figures), only that no two threads share a client, so every hand-off
 * goes from one client to another.
 */
public final class NodesScenario {

    /** Per node count, either its measurements or why it was not measured. */
    public record Outcome(Map<Integer, Series<ContendedResult>> byNodes, Map<Integer, String> skipped) {}

    /**
     * A warm-up window is this many measured windows long. Each node makes only a few hundred acquisitions a second,
     * so a library's hot path reaches the JIT's top tier only after tens of seconds; with warm-ups as long as a
     * window, that compilation ran inside the measured rounds and took a core of two from the library it measured.
     */
    public static final int WARM_UP_WINDOWS = 5;

    private final Harness harness;

    public NodesScenario(Harness harness) {
        this.harness = harness;
    }

    public Outcome run() throws Exception {
        Settings settings = harness.settings();
        Map<Integer, Series<ContendedResult>> byNodes = new LinkedHashMap<>();
        Map<Integer, String> skipped = new LinkedHashMap<>();
        List<Library> libraries = harness.libraries(ContendedScenario.handOffAnd(
                Library.DURABLE_FLOOR, Library.DURABLE_FLOOR_KEYED, Library.REDISSON_FSYNC));
        int perNode =
                libraries.stream().mapToInt(Nodes::connectionsPerNode).max().orElse(0);
        try (ChildJvm child = ChildJvm.clockChecked(harness)) {
            // Each library's schema set up once (Fencepost's migration), before dozens of nodes start at once.
            libraries.forEach(harness::client);
            for (int nodes : settings.nodeCounts()) {
                // The JVMs' own pools keep connections from earlier scenarios: give the idle ones back first.
                ((HikariDataSource) harness.context().dataSource())
                        .getHikariPoolMXBean()
                        .softEvictConnections();
                child.send("EVICT");
                child.expect("EVICT");
                int free = freeConnections();
                int needed = nodes * perNode;
                if (needed > free) {
                    String why = nodes + " nodes need " + needed + " connections (" + perNode
                            + " per node), the server had " + free + " free";
                    harness.log("nodes/" + nodes + "-nodes skipped: " + why);
                    skipped.put(nodes, why);
                    continue;
                }
                byNodes.put(
                        nodes,
                        Rounds.run(
                                harness,
                                "nodes/" + nodes + "-nodes",
                                libraries,
                                (library, round) -> measure(child, library, nodes, round),
                                ContendedResult::show));
            }
        }
        return new Outcome(byNodes, skipped);
    }

    private ContendedResult measure(ChildJvm child, Library library, int nodes, int round) throws Exception {
        Settings settings = harness.settings();
        String key = "bench:" + library.id() + ":nodes-" + nodes;
        long window = settings.nodesWindow().toNanos() * (round == 0 ? WARM_UP_WINDOWS : 1);
        long cs = settings.criticalSection().toNanos();
        int half = nodes / 2;
        child.send("NODES " + library.id() + " " + half);
        try (Nodes ours = Nodes.open(
                library,
                half,
                settings.jdbcUrl(settings.database()),
                settings.pgUser(),
                harness.context(),
                Harness.POOL_NAME + "-node")) {
            child.expect("NODES");
            harness.jit().awaitQuiet();
            return child.contend(
                    library,
                    key,
                    nodes,
                    window,
                    cs,
                    true,
                    startAt -> ContendedWorker.run(ours.clients(), key, 1, startAt, window, cs));
        } finally {
            child.send("NODES " + library.id() + " 0");
            child.expect("NODES");
        }
    }

    /** Connections the server would still accept from a non-superuser role, as of now. */
    private int freeConnections() throws Exception {
        try (Connection connection = harness.context().dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("""
                        SELECT current_setting('max_connections')::int
                               - current_setting('superuser_reserved_connections')::int
                               - (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')
                        """)) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
