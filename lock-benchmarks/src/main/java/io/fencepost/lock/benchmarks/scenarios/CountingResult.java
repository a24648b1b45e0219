package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.clients.Library;

/**
 * What one library sends per operation, counted on the wire by the proxy and, for whole cycles, by the server.
 *
 * @param statementsPerCycle statements (PostgreSQL) or commands (Redis) per uncontended acquire + release
 * @param roundTripsPerCycle times per cycle the client waited for the server
 * @param serverTransactionsPerCycle transactions the database counted per cycle (PostgreSQL only)
 * @param serverCommandsPerCycle commands the Redis server counted per cycle (Redis only)
 * @param walSyncsPerCycle WAL flushes per cycle, cluster-wide, including the WAL writer's (PostgreSQL only)
 * @param reentrantRoundTrips round trips of a nested acquire + release by the holding thread; NaN when the library
 *     (or its use here) is not reentrant
 * @param statementsPerExtend statements (commands) of one owner-checked extension of a held lease; NaN when the
 *     library has none
 */
public record CountingResult(
        Library library,
        double statementsPerCycle,
        double roundTripsPerCycle,
        String cycleBreakdown,
        double serverTransactionsPerCycle,
        double serverCommandsPerCycle,
        String serverBreakdown,
        double walSyncsPerCycle,
        double walBytesPerCycle,
        double statementsPerLosingTry,
        double roundTripsPerLosingTry,
        String losingBreakdown,
        double reentrantRoundTrips,
        double statementsPerExtend,
        double roundTripsPerExtend,
        String extendBreakdown) {}
