package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.KeyedSeries;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.Library;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Runs a measurement for every library in rounds: round 0 warms up (JIT, pools, prepared statements, caches) and is
 * discarded, and is repeated until the JIT has settled ({@link #JIT_SHARE_SETTLED}); each measured round runs every
 * library once, starting with a different one each time, so that slow drifts of a shared, noisy machine spread over
 * all libraries rather than hit one. Every measurement starts on freshly vacuumed tables
 * ({@link io.fencepost.lock.benchmarks.BenchDatabase#vacuum}).
 */
public final class Rounds {

    /** Measures one of the things a scenario compares (a library, or a variant of its own) once. */
    @FunctionalInterface
    interface Each<K, R> {
        R run(K measured, int round) throws Exception;
    }

    /** Measures one library once. */
    @FunctionalInterface
    interface Measure<R> extends Each<Library, R> {}

    /**
     * The warm-up is repeated while the JIT compilers of the run's JVMs worked for more than 1/{@value} of the time it
     * measured ({@link Activity}): until then a library with more code on its hot path is measured before its steady
     * state, and on two cores the compiler takes a core from the measurement.
     */
    public static final int JIT_SHARE_SETTLED = 50;

    /** At most this many warm-up rounds, however busy the compilers still are. */
    public static final int MAX_WARM_UPS = 4;

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
        Each<K, Void> once = (each, round) -> {
            R result = measure.run(each, round);
            String which = round == 0 ? "warm-up" : "round " + round + "/" + rounds;
            harness.log(scenario + " " + which + " " + name.apply(each) + ": " + show.apply(result));
            if (round > 0) {
                series.add(each, result);
            }
            return null;
        };
        for (int warmUp = 1; ; warmUp++) {
            Activity activity = runRound(harness, 0, measured, once);
            if (warmUp >= maxWarmUps(harness) || activity.settled()) {
                break;
            }
            harness.log(scenario + " warm-up again: the JIT compiled for " + activity.compiledMillis()
                    + " ms while it measured for " + activity.wallMillis() + " ms");
        }
        for (int round = 1; round <= rounds; round++) {
            runRound(harness, round, measured, once);
        }
        return series;
    }

    private static int maxWarmUps(Harness harness) {
        return harness.settings().quick() ? 1 : MAX_WARM_UPS;
    }

    /**
     * How much the compilers worked during a round's measurements (from the start of each, or from the moment a
     * scenario's own {@link io.fencepost.lock.benchmarks.JitActivity#awaitQuiet} let its window begin), against their
     * wall time.
     */
    record Activity(long compiledMillis, long wallMillis) {

        boolean settled() {
            return compiledMillis * JIT_SHARE_SETTLED <= wallMillis;
        }
    }

    /** One round: {@code once} for each of {@code measured}, in this round's order, on freshly vacuumed tables. */
    private static <K> Activity runRound(Harness harness, int round, List<K> measured, Each<K, Void> once)
            throws Exception {
        List<K> order = new ArrayList<>(measured);
        Collections.rotate(order, -(round % Math.max(1, order.size())));
        long compiled = 0;
        long wall = 0;
        for (K each : order) {
            harness.database().vacuum();
            long started = System.nanoTime();
            harness.jit().mark();
            once.run(each, round);
            compiled += harness.jit().sinceMark();
            wall += System.nanoTime() - started;
        }
        return new Activity(compiled, TimeUnit.NANOSECONDS.toMillis(wall));
    }
}
