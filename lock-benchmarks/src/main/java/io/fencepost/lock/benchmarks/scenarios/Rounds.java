package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.KeyedSeries;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.Library;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * Runs a measurement for every library in rounds: round 0 warms up (JIT, pools, prepared statements, caches) and is
 * discarded; each measured round runs every library once, starting with a different one each time, so that slow
 * drifts of a shared, noisy machine spread over all libraries rather than hit one. Every measurement starts on freshly
 * vacuumed tables ({@link io.fencepost.lock.benchmarks.BenchDatabase#vacuum}).
 */
final class Rounds {

    /** Measures one of the things a scenario compares (a library, or a variant of its own) once. */
    @FunctionalInterface
    interface Each<K, R> {
        R run(K measured, int round) throws Exception;
    }

    /** Measures one library once. */
    @FunctionalInterface
    interface Measure<R> extends Each<Library, R> {}

    private Rounds() {}

    static <R> Series<R> run(
            Harness harness, String scenario, List<Library> libraries, Measure<R> measure, Function<R, String> show)
            throws Exception {
        return run(harness, scenario, harness.settings().rounds(), libraries, measure, show);
    }

    /**
     * The scenarios of one thread and a short window (such as uncontended, losing, extend): twice the rounds
     * ({@link io.fencepost.lock.benchmarks.Settings#shortRounds()}) of those of {@code candidates} that the run
     * includes, logged as cycle results.
     */
    static Series<CycleResult> shortCycles(
            Harness harness, String scenario, Measure<CycleResult> measure, Library... candidates) throws Exception {
        return run(
                harness,
                scenario,
                harness.settings().shortRounds(),
                harness.libraries(candidates),
                measure,
                CycleResult::show);
    }

    static <R> Series<R> run(
            Harness harness,
            String scenario,
            int rounds,
            List<Library> libraries,
            Measure<R> measure,
            Function<R, String> show)
            throws Exception {
        return over(harness, scenario, rounds, libraries, Library::id, new Series<>(), measure, show);
    }

    /**
     * The same rounds over any things a scenario compares, named in the log by {@code name}, into {@code series}.
     */
    static <K, R, S extends KeyedSeries<K, R>> S over(
            Harness harness,
            String scenario,
            int rounds,
            List<K> measured,
            Function<K, String> name,
            S series,
            Each<K, R> measure,
            Function<R, String> show)
            throws Exception {
        for (int round = 0; round <= rounds; round++) {
            List<K> order = new ArrayList<>(measured);
            Collections.rotate(order, -(round % Math.max(1, order.size())));
            for (K each : order) {
                harness.database().vacuum();
                R result = measure.run(each, round);
                String which = round == 0 ? "warm-up" : "round " + round + "/" + rounds;
                harness.log(scenario + " " + which + " " + name.apply(each) + ": " + show.apply(result));
                if (round > 0) {
                    series.add(each, result);
                }
            }
        }
        return series;
    }
}
