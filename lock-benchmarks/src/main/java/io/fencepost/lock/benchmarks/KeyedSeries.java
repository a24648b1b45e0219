package io.fencepost.lock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The measurements of one scenario: per measured thing (a library, or a scenario's own variants), one result per
 * measured round. Rounds run them interleaved, so the per-round ratios compare measurements taken close together in
 * time.
 */
public class KeyedSeries<K, R> {

    private final Map<K, List<R>> rounds;

    /** @param rounds an empty map whose iteration order is the order of {@link #keys()} */
    public KeyedSeries(Map<K, List<R>> rounds) {
        this.rounds = rounds;
    }

    public void add(K key, R result) {
        rounds.computeIfAbsent(key, k -> new ArrayList<>()).add(result);
    }

    public boolean has(K key) {
        return rounds.containsKey(key) && !rounds.get(key).isEmpty();
    }

    public List<K> keys() {
        return List.copyOf(rounds.keySet());
    }

    public List<R> of(K key) {
        return rounds.getOrDefault(key, List.of());
    }

    public double median(K key, ToDoubleFunction<R> metric) {
        return Samples.median(values(key, metric));
    }

    public double min(K key, ToDoubleFunction<R> metric) {
        return Samples.min(values(key, metric));
    }

    public double max(K key, ToDoubleFunction<R> metric) {
        return Samples.max(values(key, metric));
    }

    /** The median over rounds of {@code metric(a) / metric(b)} in the same round; NaN when either is missing. */
    public double ratio(K a, K b, ToDoubleFunction<R> metric) {
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
    public double difference(K a, K b, ToDoubleFunction<R> metric) {
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

    private double[] values(K key, ToDoubleFunction<R> metric) {
        return of(key).stream().mapToDouble(metric).toArray();
    }
}
