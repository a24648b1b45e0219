package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.clients.LockClient;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Scaling over keys: threads of one client in one JVM, each cycling acquire + release on a key of its own, so that
 * nothing waits and whatever still makes the threads queue is on the client or the server (the pool, WAL flushes,
 * anything server-wide). Then the same with a waiter on every key: two threads per key, in two clients of this JVM,
 * so that a release is one the other client waits for (for Fencepost one that sends {@code NOTIFY}, whose commit
 * serializes with every other such commit on the server).
 */
public final class DistinctKeysScenario {

    /** Key counts of the variant with waiters; two threads on each key. */
    public static final List<Integer> PAIRED_KEYS = List.of(16, 64);

    /** Per thread count, and per key count the variant with two threads (two clients) per key. */
    public record Outcome(Map<Integer, Series<CycleResult>> byThreads, Map<Integer, Series<CycleResult>> paired) {}

    private final Harness harness;

    public DistinctKeysScenario(Harness harness) {
        this.harness = harness;
    }

    public Outcome run() throws Exception {
        var settings = harness.settings();
        var libraries = harness.libraries(Library.FENCEPOST, Library.RAW);
        Map<Integer, Series<CycleResult>> byThreads = new LinkedHashMap<>();
        for (int threads : settings.keyThreadCounts()) {
            byThreads.put(
                    threads,
                    Rounds.run(
                            harness,
                            "distinct-keys/" + threads + "-threads",
                            libraries,
                            (library, round) -> Cycles.run(
                                    t -> harness.client(library),
                                    t -> "bench:" + library.id() + ":own-" + t,
                                    threads,
                                    settings.keysWindow()),
                            CycleResult::show));
        }
        // The second client of each library: another application instance in this JVM, on the same pool.
        Map<Library, LockClient> second = new EnumMap<>(Library.class);
        try {
            Map<Integer, Series<CycleResult>> paired = new LinkedHashMap<>();
            for (int keys : PAIRED_KEYS) {
                paired.put(
                        keys,
                        Rounds.run(
                                harness,
                                "distinct-keys/" + keys + "-keys-two-clients",
                                libraries,
                                (library, round) -> {
                                    LockClient other = second.computeIfAbsent(library, l -> l.open(harness.context()));
                                    return Cycles.run(
                                            t -> t % 2 == 0 ? harness.client(library) : other,
                                            t -> "bench:" + library.id() + ":paired-" + t / 2,
                                            2 * keys,
                                            settings.keysWindow());
                                },
                                CycleResult::show));
            }
            return new Outcome(byThreads, paired);
        } finally {
            second.values().forEach(LockClient::close);
        }
    }
}
