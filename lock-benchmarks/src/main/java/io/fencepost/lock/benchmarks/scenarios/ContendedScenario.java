package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.Library;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Threads on one key across two JVMs (this one and a second process it starts), half in each: critical sections per
 * second, hand-off latency to another thread, wait percentiles and how often the releasing thread takes the key
 * straight back.
 */
public final class ContendedScenario {

    /** The exclusive locks whose hand-offs both two-JVM scenarios compare; each adds the cases of its own. */
    private static final List<Library> HAND_OFF = List.of(
            Library.RAW,
            Library.FENCEPOST,
            Library.FENCEPOST_FAIR,
            Library.SHEDLOCK,
            Library.SPRING_INTEGRATION,
            Library.REDISSON);

    private final Harness harness;

    private long clockCheckNanos;

    public ContendedScenario(Harness harness) {
        this.harness = harness;
    }

    /** The width of the window in which the second JVM's clock reading had to fall, in nanoseconds. */
    public long clockCheckNanos() {
        return clockCheckNanos;
    }

    /** One series per total thread count, in the order of the settings. */
    public Map<Integer, Series<ContendedResult>> run() throws Exception {
        Settings settings = harness.settings();
        Map<Integer, Series<ContendedResult>> byThreads = new LinkedHashMap<>();
        List<Library> libraries = harness.libraries(handOffAnd(Library.ADVISORY));
        try (ChildJvm child = ChildJvm.clockChecked(harness)) {
            clockCheckNanos = child.clockCheckNanos();
            for (Library library : libraries) {
                harness.client(library);
                child.send("OPEN " + library.id());
                child.expect("OPEN");
            }
            for (int threads : settings.threadCounts()) {
                byThreads.put(
                        threads,
                        Rounds.run(
                                harness,
                                "contended/" + threads + "-threads",
                                libraries,
                                (library, round) -> measure(child, library, threads),
                                ContendedResult::show));
            }
        }
        return byThreads;
    }

    /** {@link #HAND_OFF} followed by {@code more}. */
    static Library[] handOffAnd(Library... more) {
        return Stream.concat(HAND_OFF.stream(), Arrays.stream(more)).toArray(Library[]::new);
    }

    private ContendedResult measure(ChildJvm child, Library library, int threads) throws Exception {
        Settings settings = harness.settings();
        String key = "bench:" + library.id() + ":contended";
        long window = settings.contendedWindow().toNanos();
        long cs = settings.criticalSection().toNanos();
        harness.jit().awaitQuiet();
        return child.contend(
                library,
                key,
                threads,
                window,
                cs,
                false,
                startAt -> ContendedWorker.run(harness.client(library), key, threads / 2, 1, startAt, window, cs));
    }
}
