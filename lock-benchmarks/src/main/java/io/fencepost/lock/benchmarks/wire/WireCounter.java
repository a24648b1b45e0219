package io.fencepost.lock.benchmarks.wire;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Where the wire readers report: statements (or commands) by kind, and round trips. */
public final class WireCounter {

    private final Map<String, LongAdder> kinds = new ConcurrentHashMap<>();

    private final LongAdder statements = new LongAdder();

    private final LongAdder roundTrips = new LongAdder();

    /** Forgets everything counted so far. */
    public void reset() {
        statements.reset();
        roundTrips.reset();
        kinds.clear();
    }

    public WireCounts counts() {
        Map<String, Long> byKind = new HashMap<>();
        kinds.forEach((kind, n) -> byKind.put(kind, n.sum()));
        return new WireCounts(statements.sum(), roundTrips.sum(), byKind);
    }

    void roundTrip() {
        roundTrips.increment();
    }

    void statement(String kind) {
        statements.increment();
        kinds.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }
}
