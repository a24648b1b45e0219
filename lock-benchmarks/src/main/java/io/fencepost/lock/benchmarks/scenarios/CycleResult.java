package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Samples;

/**
 * One library's operations in one round: how many per second, and their latency in microseconds (the whole
 * operation, and for a cycle its acquire and release parts).
 */
public record CycleResult(
        long operations,
        double seconds,
        double perSecond,
        double p50Micros,
        double p99Micros,
        double acquireP50Micros,
        double releaseP50Micros,
        long anomalies) {

    static CycleResult of(
            long operations, long nanos, Samples total, Samples acquire, Samples release, long anomalies) {
        double seconds = nanos / 1e9;
        return new CycleResult(
                operations,
                seconds,
                operations / seconds,
                total.percentile(50) / 1e3,
                total.percentile(99) / 1e3,
                acquire.percentile(50) / 1e3,
                release.percentile(50) / 1e3,
                anomalies);
    }

    String show() {
        return "%,.0f/s, p50 %.0f µs, p99 %.0f µs%s"
                .formatted(perSecond, p50Micros, p99Micros, anomalies > 0 ? ", " + anomalies + " anomalies" : "");
    }
}
