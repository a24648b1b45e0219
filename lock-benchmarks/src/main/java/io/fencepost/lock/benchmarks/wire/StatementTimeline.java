package io.fencepost.lock.benchmarks.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * When each prepared statement ran, on which thread, as the client saw it: from the call into the driver to its
 * return (the round trip, the server's work and, for an autocommit statement, its commit). Only the threads named
 * with {@link #record} are recorded, each into a list of its own, so that recording costs the timed threads no lock.
 * Used to take a hand-off apart into the statements on its path and the client's time between them.
 */
public final class StatementTimeline {

    /** One statement: {@code kind} as {@link PgFrontendCounter#kind} names it; times from {@link System#nanoTime}. */
    public record Call(String kind, long startNanos, long endNanos) {}

    private final Map<Thread, List<Call>> byThread = new ConcurrentHashMap<>();

    /** From now on, the statements {@code thread} runs are recorded. */
    public void record(Thread thread) {
        byThread.put(thread, new ArrayList<>());
    }

    /** The statements {@code thread} ran, in order; read once the thread has stopped. */
    public List<Call> calls(Thread thread) {
        return byThread.getOrDefault(thread, List.of());
    }

    /** {@code target} with every connection taken from it recording its statements here. */
    public DataSource wrap(DataSource target) {
        return TimedStatements.wrap(target, (kind, start, end) -> {
            List<Call> calls = byThread.get(Thread.currentThread());
            if (calls != null) {
                calls.add(new Call(kind, start, end));
            }
        });
    }
}
