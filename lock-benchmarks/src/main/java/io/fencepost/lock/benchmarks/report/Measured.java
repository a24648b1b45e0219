package io.fencepost.lock.benchmarks.report;

import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.Samples;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.scenarios.CountingResult;
import io.fencepost.lock.jdbc.PostgresLeaseStore;
import io.fencepost.lock.spi.LeaseStore;
import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/** Look-ups into one run's results, and into the code under test, that several sections of the report share. */
final class Measured {

    private Measured() {}

    static Optional<CountingResult> counted(Results r, Library library) {
        return r.counting.stream().filter(c -> c.library() == library).findFirst();
    }

    static <T> double median(List<T> xs, ToDoubleFunction<T> metric) {
        return Samples.median(xs.stream().mapToDouble(metric).toArray());
    }

    static <T> String rangeOf(List<T> xs, ToDoubleFunction<T> metric) {
        double[] values = xs.stream().mapToDouble(metric).toArray();
        return Fmt.num(Samples.min(values)) + "–" + Fmt.num(Samples.max(values));
    }

    /** Whether Fencepost's PostgreSQL store pushes releases to waiters (rather than leaving them to poll). */
    static boolean pushHandOff() {
        try {
            return PostgresLeaseStore.class
                            .getMethod("subscribe", String.class, Runnable.class)
                            .getDeclaringClass()
                    != LeaseStore.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
