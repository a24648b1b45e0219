package io.fencepost.lock.benchmarks;

import io.fencepost.lock.benchmarks.clients.Library;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The measurements of one scenario: per library, one result per measured round. Rounds run the libraries
 * interleaved, so the per-round ratios compare measurements taken close together in time.
 */
public final class Series<R> {

    private final Map<Library, List<R>> rounds = new EnumMap<>(Library.class);

    public void add(Library library, R result) {
        rounds.computeIfAbsent(library, l -> new ArrayList<>()).add(result);
    }

    public boolean has(Library library) {
        return rounds.containsKey(library) && !rounds.get(library).isEmpty();
    }

    public List<Library> libraries() {
        return List.copyOf(rounds.keySet());
    }

    public List<R> of(Library library) {
        return rounds.getOrDefault(library, List.of());
    }

    public double median(Library library, ToDoubleFunction<R> metric) {
        return Samples.median(values(library, metric));
    }

    public double min(Library library, ToDoubleFunction<R> metric) {
        return Samples.min(values(library, metric));
    }

    public double max(Library library, ToDoubleFunction<R> metric) {
        return Samples.max(values(library, metric));
    }

    /** The median over rounds of {@code metric(a) / metric(b)} in the same round; NaN when either is missing. */
    public double ratio(Library a, Library b, ToDoubleFunction<R> metric) {
        if (!has(a) || !has(b)) {
            return Double.NaN;
        }
        double[] xs = values(a, metric);
        double[] ys = values(b, metric);
        int n = Math.min(xs.length, ys.length);
        double[] ratios = new double[n];
        for (int i = 0; i < n; i++) {
            ratios[i] = xs[i] / ys[i];
        }
        return Samples.median(ratios);
    }

    /** The median over rounds of {@code metric(a) - metric(b)} in the same round; NaN when either is missing. */
    public double difference(Library a, Library b, ToDoubleFunction<R> metric) {
        if (!has(a) || !has(b)) {
            return Double.NaN;
        }
        double[] xs = values(a, metric);
        double[] ys = values(b, metric);
        int n = Math.min(xs.length, ys.length);
        double[] differences = new double[n];
        for (int i = 0; i < n; i++) {
            differences[i] = xs[i] - ys[i];
        }
        return Samples.median(differences);
    }

    private double[] values(Library library, ToDoubleFunction<R> metric) {
        return of(library).stream().mapToDouble(metric).toArray();
    }
}
