package io.fencepost.lock.benchmarks;

import java.util.Arrays;

/** A growable array of long samples (latencies in nanoseconds, mostly) with percentiles. */
public final class Samples {

    private long[] values;

    private int size;

    private boolean sorted;

    public Samples() {
        this(1024);
    }

    public Samples(int capacity) {
        this.values = new long[Math.max(16, capacity)];
    }

    public void add(long value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
        sorted = false;
    }

    public void addAll(Samples other) {
        for (int i = 0; i < other.size; i++) {
            add(other.values[i]);
        }
    }

    public int size() {
        return size;
    }

    /** The {@code p}-th percentile (0–100) by the nearest-rank method; NaN when empty. */
    public double percentile(double p) {
        if (size == 0) {
            return Double.NaN;
        }
        if (!sorted) {
            Arrays.sort(values, 0, size);
            sorted = true;
        }
        int rank = (int) Math.ceil(p / 100.0 * size);
        return values[Math.min(size - 1, Math.max(0, rank - 1))];
    }

    public double mean() {
        if (size == 0) {
            return Double.NaN;
        }
        double sum = 0;
        for (int i = 0; i < size; i++) {
            sum += values[i];
        }
        return sum / size;
    }

    /** The median of some doubles, ignoring NaN; NaN when none is left. */
    public static double median(double... xs) {
        double[] finite =
                Arrays.stream(xs).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (finite.length == 0) {
            return Double.NaN;
        }
        int mid = finite.length / 2;
        return finite.length % 2 == 1 ? finite[mid] : (finite[mid - 1] + finite[mid]) / 2;
    }

    public static double min(double... xs) {
        return Arrays.stream(xs).filter(x -> !Double.isNaN(x)).min().orElse(Double.NaN);
    }

    public static double max(double... xs) {
        return Arrays.stream(xs).filter(x -> !Double.isNaN(x)).max().orElse(Double.NaN);
    }
}
