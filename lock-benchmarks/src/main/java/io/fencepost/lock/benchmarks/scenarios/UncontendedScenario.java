package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.Library;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One thread, nobody else: acquire and release as fast as the library allows, either always the same key or a new
 * key every cycle. The {@code SELECT 1} baseline makes one round trip instead.
 */
public final class UncontendedScenario {

    static final Duration WAIT = Duration.ofSeconds(10);

    private final Harness harness;

    private final Map<Library, long[]> keySequences = new EnumMap<>(Library.class);

    public UncontendedScenario(Harness harness) {
        this.harness = harness;
    }

    /** Same key every cycle. */
    public Series<CycleResult> sameKey() throws Exception {
        Library[] all =
                Arrays.stream(Library.values()).filter(l -> !l.isVariant()).toArray(Library[]::new);
        return Rounds.shortCycles(harness, "uncontended/same-key", (library, round) -> measure(library, true), all);
    }

    /** A key never used before, every cycle. */
    public Series<CycleResult> distinctKeys() throws Exception {
        Library[] locks = Arrays.stream(Library.values())
                .filter(l -> l.isLock() && !l.isEvidence() && !l.isVariant())
                .toArray(Library[]::new);
        return Rounds.shortCycles(
                harness, "uncontended/distinct-keys", (library, round) -> measure(library, false), locks);
    }

    private CycleResult measure(Library library, boolean sameKey) throws Exception {
        long[] sequence = keySequences.computeIfAbsent(library, l -> new long[1]);
        String prefix = "bench:" + library.id() + ":";
        String same = prefix + "same";
        Supplier<String> keys = sameKey ? () -> same : () -> prefix + sequence[0]++;
        return Cycles.run(harness.client(library), keys, 1, harness.settings().cycleWindow());
    }
}
