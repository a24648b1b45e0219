package io.fencepost.lock.benchmarks.report;

import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST;
import static io.fencepost.lock.benchmarks.clients.Library.RAW;

import io.fencepost.lock.benchmarks.Pools;
import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.clients.Nodes;
import io.fencepost.lock.benchmarks.scenarios.CycleResult;
import java.util.Map;

/**
 * Writes the nodes section (one client instance per thread on one key, across two JVMs) and the distinct-keys section
 * (threads of one client, each on its own key, and then two clients per key).
 */
record NodesAndKeysSections(Settings settings, Results r, Markdown md) implements Section {

    /** What the two durable references of the nodes scenario are, and why they are there. */
    static final String DURABLE_REFERENCES = "The durable floor and Redisson on an fsynced Redis are references for"
            + " a lock whose grants are durable. The *durable floor* is the least such a hand-off can cost on"
            + " PostgreSQL: each node waits in the server's own lock queue (a blocking `pg_advisory_lock(class,"
            + " hashtext(key))` on a connection of its own, so the server wakes it when the holder unlocks), and each"
            + " grant is one autocommit `INSERT … ON CONFLICT DO UPDATE` of a lease row with `nextval` for the"
            + " fencing token, committed with `synchronous_commit` on; the release is `pg_advisory_unlock`. That is"
            + " one wake-up and one WAL flush per hand-off and nothing else: the row's expiry is written but never"
            + " checked, and nothing renews. *Redisson, Redis with appendfsync always* is the same Redisson `RLock`"
            + " against a second `redis-server` that the harness starts with `--appendonly yes --appendfsync always"
            + " --save ''`, so that every grant is on disk before Redis answers. Fencepost's rate is bounded by one"
            + " flush per hand-off: these two rows show that bound for locks whose grants survive a crash, where"
            + " the plain Redisson row persists nothing.";

    @Override
    public void write() {
        nodes();
        keys();
    }

    private void nodes() {
        if (r.nodes.isEmpty() && r.nodesSkipped.isEmpty()) {
            return;
        }
        long overlaps = ContendedTables.overlaps(r.nodes);
        md.line("## One node per thread, two JVMs");
        md.line();
        md.line("N nodes on one key, N/2 in each JVM. A node is a separate application instance: its own client (lock"
                + " manager, registry, lock provider or Redisson client) and its own small pool ("
                + poolSizes() + "), with exactly one thread looping acquire → (empty) critical section → release →"
                + " acquire again, for " + Fmt.secs(settings.nodesWindow()) + " per library and round. Unlike the"
                + " contended scenario no two threads share a client, so no hand-off stays inside one client's local"
                + " queue. *Hand-off to another node*: from the start of a release to the next critical section when"
                + " that one is another node's. *Wait*: from calling acquire to holding the key. *Re-acquired*: share"
                + " of critical sections followed by one of the same node. Overlapping critical sections (a safety"
                + " check) were " + (overlaps == 0 ? "never seen." : "**seen " + overlaps + " times**."));
        md.line();
        if (r.nodes.values().stream().anyMatch(s -> s.has(Library.DURABLE_FLOOR) || s.has(Library.REDISSON_FSYNC))) {
            md.line(DURABLE_REFERENCES);
            md.line();
        }
        r.nodesSkipped.forEach((nodes, why) -> {
            md.line("*" + nodes + " nodes: not measured, " + why + ".*");
            md.line();
        });
        ContendedTables.write(md, r.nodes, "node", false, NodesAndKeysSections::waitsBy);
    }

    private static String poolSizes() {
        return "Fencepost " + Nodes.connectionsPerNode(FENCEPOST) + " connections, one for its `LISTEN`, one for"
                + " its statements and one for its place in the server's lock queue; Spring Integration "
                + Nodes.connectionsPerNode(Library.SPRING_INTEGRATION)
                + "; raw SQL, ShedLock and the durable floor " + Nodes.connectionsPerNode(RAW) + "; Redisson one"
                + " client with at most 2 connections for commands, 1 for pub/sub and 2 Netty threads";
    }

    private static String waitsBy(Library library) {
        return switch (library) {
            case RAW -> "harness polls every 5 ms";
            case FENCEPOST ->
                Measured.pushHandOff()
                        ? "server-side lock queue (a session advisory lock per contended key), then one durable grant"
                        : "polls, 5–100 ms backoff";
            case FENCEPOST_FAIR -> "as Fencepost, every waiter registered and served in arrival order";
            case SHEDLOCK -> "harness polls every 5 ms (ShedLock never waits)";
            case SPRING_INTEGRATION -> "polls every 100 ms";
            case REDISSON, REDISSON_FSYNC -> "pub/sub wake-up";
            case DURABLE_FLOOR, DURABLE_FLOOR_KEYED -> "server-side lock queue (blocking `pg_advisory_lock`)";
            default -> Fmt.NONE;
        };
    }

    private void keys() {
        if (r.keyScaling.isEmpty()) {
            return;
        }
        md.line("## Distinct keys in parallel, one client");
        md.line();
        md.line("T threads of one client (one pool of at most " + Pools.MAX_SIZE + " connections) in one JVM, thread i"
                + " cycling acquire + release on its own key i, for " + Fmt.secs(settings.keysWindow()) + " per"
                + " library and round. Nobody waits, so what keeps the total from growing with the threads is the"
                + " client, the pool or something server-wide (WAL flushes, locks, `NOTIFY`). Raw SQL is the durable"
                + " ceiling (one autocommit statement each for acquire and release). *Scaling*: cycles/s divided by"
                + " the library's own with 1 thread. Beyond " + Pools.MAX_SIZE + " threads the pool queues them.");
        md.line();
        md.line("| threads | **Fencepost** cycles/s | raw SQL cycles/s | Fencepost ÷ raw SQL | Fencepost cycle p50"
                + " | raw SQL cycle p50 | Fencepost scaling | raw SQL scaling |");
        md.line("| --- | --- | --- | --- | --- | --- | --- | --- |");
        Series<CycleResult> one = r.keyScaling.values().iterator().next();
        int baseThreads = r.keyScaling.keySet().iterator().next();
        for (Map.Entry<Integer, Series<CycleResult>> entry : r.keyScaling.entrySet()) {
            Series<CycleResult> s = entry.getValue();
            md.line("| " + entry.getKey() + " | " + Fmt.count(s.median(FENCEPOST, CycleResult::perSecond)) + " | "
                    + Fmt.count(s.median(RAW, CycleResult::perSecond)) + " | "
                    + Fmt.ratio(s.ratio(FENCEPOST, RAW, CycleResult::perSecond)) + " | "
                    + Fmt.us(s.median(FENCEPOST, CycleResult::p50Micros)) + " | "
                    + Fmt.us(s.median(RAW, CycleResult::p50Micros)) + " | "
                    + scaling(s, one, FENCEPOST) + " | " + scaling(s, one, RAW) + " |");
        }
        md.line();
        if (baseThreads != 1) {
            md.line("*Scaling is relative to " + baseThreads + " threads, the fewest measured.*");
            md.line();
        }
        r.keyPairs.forEach(this::pairs);
    }

    private void pairs(int keys, Series<CycleResult> p) {
        md.line("### " + keys + " keys, two clients per key");
        md.line();
        md.line(2 * keys + " threads on " + keys + " keys:"
                + " on each key one thread of the JVM's client and one of a second client of the same library in the"
                + " same JVM (same pool of " + Pools.MAX_SIZE + " connections), so every key has a waiter in another"
                + " client and a release is one someone waits for (Fencepost's waiter waits in the server's lock queue"
                + " while its client has a queue session left, 4 by default, and is registered and woken by `NOTIFY`"
                + " past that; raw SQL's waiter polls every 5 ms). A cycle's acquire includes its wait.");
        md.line();
        md.line("| library | cycles/s | range over rounds | cycle p50 | cycle p99 | Fencepost ÷ this |");
        md.line("| --- | --- | --- | --- | --- | --- |");
        for (Library library : p.libraries()) {
            long failures =
                    p.of(library).stream().mapToLong(CycleResult::anomalies).sum();
            md.line("| " + Section.label(library) + " | " + Fmt.count(p.median(library, CycleResult::perSecond))
                    + (failures > 0 ? " (" + failures + " timed out)" : "") + " | "
                    + Fmt.range(p.min(library, CycleResult::perSecond), p.max(library, CycleResult::perSecond))
                    + " | " + Fmt.us(p.median(library, CycleResult::p50Micros)) + " | "
                    + Fmt.us(p.median(library, CycleResult::p99Micros)) + " | "
                    + (library == FENCEPOST ? "1" : Fmt.ratio(p.ratio(FENCEPOST, library, CycleResult::perSecond)))
                    + " |");
        }
        md.line();
    }

    private static String scaling(Series<CycleResult> s, Series<CycleResult> base, Library library) {
        double baseline = base.median(library, CycleResult::perSecond);
        return Fmt.ratio(s.median(library, CycleResult::perSecond) / baseline);
    }
}
