package io.fencepost.lock.benchmarks.scenarios;

/**
 * Many leases held at once and kept alive by the library's renewal, observed over a few renewal periods.
 *
 * @param period how often each lease is extended (a third of its lease time for both libraries)
 * @param statementsPerPeriod renewal statements (or Redis commands) sent per period, counted over the window
 * @param leasesPerStatement leases extended per statement
 * @param renewedPerPeriod lease extensions per period (should equal the lease count)
 * @param statementP50Ms median duration of one renewal statement, where it could be timed
 * @param heapBytesPerLease retained heap per held lease after a full GC (handles kept by the caller included)
 */
public record RenewalResult(
        String library,
        int leases,
        double leaseSeconds,
        double period,
        double acquireSeconds,
        double observedSeconds,
        double statementsPerPeriod,
        double leasesPerStatement,
        double renewedPerPeriod,
        double statementP50Ms,
        double statementMaxMs,
        long lost,
        double heapBytesPerLease,
        String breakdown) {}
