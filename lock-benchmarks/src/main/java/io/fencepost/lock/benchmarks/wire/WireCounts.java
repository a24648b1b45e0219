package io.fencepost.lock.benchmarks.wire;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a client sent over the wire: statements (PostgreSQL Execute and Query messages) or commands (Redis), the
 * round trips (times the client spoke after the server had), and the statements by their leading keyword.
 */
public record WireCounts(long statements, long roundTrips, Map<String, Long> byKind) {

    public WireCounts {
        byKind = Map.copyOf(byKind);
    }

    /** The statement kinds in a stable order, each with its count per {@code ops} operations. */
    public String breakdown(long ops) {
        StringBuilder out = new StringBuilder();
        new TreeMap<>(byKind).forEach((kind, n) -> {
            if (out.length() > 0) {
                out.append(", ");
            }
            double per = (double) n / ops;
            out.append(kind)
                    .append(" ×")
                    .append(per == Math.rint(per) ? String.valueOf((long) per) : "%.2f".formatted(per));
        });
        return out.length() == 0 ? "–" : out.toString();
    }
}
