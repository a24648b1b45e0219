package io.fencepost.lock.benchmarks.report;

import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.scenarios.ContendedResult;
import io.fencepost.lock.benchmarks.scenarios.CountingResult;
import io.fencepost.lock.benchmarks.scenarios.CycleResult;
import java.util.HashMap;
import java.util.Map;
import java.util.function.DoubleFunction;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The formatted values that a piece of report prose names by placeholder: {@code <library id>.<figure>} is that
 * library's median in the series given (or its wire counts), an alias stands for a library chosen by the caller, and
 * any other name is a value the caller put.
 */
final class Figures implements Function<String, String> {

    /** One figure of a series: the metric whose median over the rounds it is, and how that is written. */
    private record Figure<R>(ToDoubleFunction<R> metric, DoubleFunction<String> format) {

        String of(Series<R> s, Library library) {
            return format.apply(s.median(library, metric));
        }
    }

    private static final Map<String, Figure<CycleResult>> CYCLE = Map.of(
            "cycle", new Figure<>(CycleResult::p50Micros, Fmt::us),
            "acquire", new Figure<>(CycleResult::acquireP50Micros, Fmt::us),
            "release", new Figure<>(CycleResult::releaseP50Micros, Fmt::us));

    private static final Map<String, Figure<ContendedResult>> CONTENDED = Map.of(
            "cs", new Figure<>(ContendedResult::perSecond, Fmt::count),
            "handoff", new Figure<>(ContendedResult::handoffP50Ms, Fmt::ms),
            "crossHandoff", new Figure<>(ContendedResult::crossJvmHandoffP50Ms, Fmt::ms),
            "crossShare", new Figure<>(ContendedResult::crossJvmShare, Fmt::pct),
            "waitP50", new Figure<>(ContendedResult::waitP50Ms, Fmt::ms),
            "waitP99", new Figure<>(ContendedResult::waitP99Ms, Fmt::ms),
            "reacquired", new Figure<>(ContendedResult::reacquireShare, Fmt::pct),
            "busier", new Figure<>(ContendedResult::busierJvmShare, Fmt::pct));

    private static final Map<String, Function<CountingResult, String>> COUNTED = Map.of(
            "statements", c -> Fmt.num(c.statementsPerCycle()),
            "roundTrips", c -> Fmt.num(c.roundTripsPerCycle()),
            "walSyncs", c -> Fmt.num(c.walSyncsPerCycle()),
            "walBytes", c -> Fmt.count(c.walBytesPerCycle()),
            "losingStatements", c -> Fmt.num(c.statementsPerLosingTry()),
            "losingRoundTrips", c -> Fmt.num(c.roundTripsPerLosingTry()),
            "losingBreakdown", CountingResult::losingBreakdown);

    private final Results r;

    private final Map<String, String> named = new HashMap<>();

    private final Map<String, Library> aliases = new HashMap<>();

    private Series<CycleResult> cycles;

    private Series<ContendedResult> contended;

    Figures(Results r) {
        this.r = r;
    }

    /** The series whose cycle figures ({@code cycle}, {@code acquire}, {@code release}) the prose names. */
    Figures cycles(Series<CycleResult> s) {
        cycles = s;
        return this;
    }

    /** The series whose contended figures the prose names. */
    Figures contended(Series<ContendedResult> s) {
        contended = s;
        return this;
    }

    /** {@code name} in place of a library id. */
    Figures alias(String name, Library library) {
        aliases.put(name, library);
        return this;
    }

    Figures put(String name, Object value) {
        named.put(name, String.valueOf(value));
        return this;
    }

    @Override
    public String apply(String name) {
        String value = named.get(name);
        if (value != null) {
            return value;
        }
        int dot = name.lastIndexOf('.');
        if (dot > 0) {
            String id = name.substring(0, dot);
            String figure = name.substring(dot + 1);
            Library library = aliases.containsKey(id) ? aliases.get(id) : Library.byId(id);
            if (cycles != null && CYCLE.containsKey(figure)) {
                return CYCLE.get(figure).of(cycles, library);
            }
            if (contended != null && CONTENDED.containsKey(figure)) {
                return CONTENDED.get(figure).of(contended, library);
            }
            if (COUNTED.containsKey(figure)) {
                return Measured.counted(r, library).map(COUNTED.get(figure)).orElse(Fmt.NONE);
            }
        }
        throw new IllegalArgumentException("no figure '" + name + "' for this paragraph");
    }
}
