package io.fencepost.lock.benchmarks.wire;

import io.fencepost.lock.benchmarks.Samples;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Times every prepared statement executed through the data sources it wraps, by leading keyword (as
 * {@link PgFrontendCounter#kind} names them). Used where the statements are few but large, such as renewing
 * thousands of leases in one {@code UPDATE}.
 */
public final class StatementTiming {

    private final Map<String, Samples> byKind = new HashMap<>();

    /** Durations in nanoseconds of the statements of one kind executed since the last reset (a copy). */
    public synchronized Samples durations(String kind) {
        Samples copy = new Samples();
        Samples samples = byKind.get(kind);
        if (samples != null) {
            copy.addAll(samples);
        }
        return copy;
    }

    /** How many statements of each kind were executed since the last reset. */
    public synchronized Map<String, Integer> counts() {
        Map<String, Integer> counts = new HashMap<>();
        byKind.forEach((kind, samples) -> counts.put(kind, samples.size()));
        return counts;
    }

    public synchronized void reset() {
        byKind.clear();
    }

    private synchronized void record(String kind, long nanos) {
        byKind.computeIfAbsent(kind, k -> new Samples()).add(nanos);
    }

    /**
     * {@code target} with every connection taken from it timing its statements here. Its connection builder is
     * refused: the connections it built would escape the timing.
     */
    public DataSource wrap(DataSource target) {
        return TimedStatements.wrap(target, (kind, start, end) -> record(kind, end - start));
    }
}
