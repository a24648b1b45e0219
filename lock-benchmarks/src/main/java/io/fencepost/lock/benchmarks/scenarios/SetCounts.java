package io.fencepost.lock.benchmarks.scenarios;

/**
 * What one uncontended cycle of a set (acquire + release) cost, counted rather than timed: statements on the wire for
 * its acquire and for its release, round trips, the statements by kind, and WAL flushes at the server.
 *
 * @param walFlushes NaN when others wrote to the cluster while they were counted (see {@code rowsWrittenElsewhere})
 * @param rowsWrittenElsewhere rows that other databases' queries wrote during the (last) counted passes
 */
public record SetCounts(
        double acquireStatements,
        double releaseStatements,
        double roundTrips,
        String breakdown,
        double walFlushes,
        long rowsWrittenElsewhere) {}
