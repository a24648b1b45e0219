package io.fencepost.lock.reliability.checker;

import java.time.Duration;

/**
 * The shape of one checker run.
 *
 * @param duration how long the workers lock (faults stop a little earlier)
 * @param processes worker JVMs
 * @param threads threads per worker
 * @param sharedThreads of those, how many share one lock manager (the others have one each, and may freeze)
 * @param keys distinct keys
 * @param leaseTime lease time of every grant
 * @param statementTimeout the lock managers' statement timeout
 * @param frozenShare probability that a critical section of a thread with its own manager freezes past its lease
 * @param longShare probability that a critical section (not frozen) works for one to three lease times, renewed
 * @param faults whether to inject faults
 * @param ownServer whether to run on a PostgreSQL of the run's own (then the database is also crashed and
 *     restarted); else on the shared test server
 * @param mode what the workers run
 * @param seed the seed of every random choice in the workers (the fault schedule has its own, from it)
 */
public record CheckerConfig(
        Duration duration,
        int processes,
        int threads,
        int sharedThreads,
        int keys,
        Duration leaseTime,
        Duration statementTimeout,
        double frozenShare,
        double longShare,
        boolean faults,
        boolean ownServer,
        WorkerMode mode,
        long seed) {

    /** The run of {@code mvn verify}: 45 seconds of locking under faults. */
    public static CheckerConfig ci() {
        return new CheckerConfig(
                Duration.ofSeconds(45),
                3,
                4,
                2,
                3,
                Duration.ofMillis(1500),
                Duration.ofMillis(1000),
                0.08,
                0.06,
                true,
                true,
                WorkerMode.CORRECT,
                System.nanoTime());
    }

    /** {@link #ci()} with the settings of system properties {@code fencepost.checker.*} applied. */
    public static CheckerConfig fromSystemProperties() {
        CheckerConfig c = ci();
        return new CheckerConfig(
                Duration.parse(System.getProperty("fencepost.checker.duration", c.duration.toString())),
                Integer.getInteger("fencepost.checker.processes", c.processes),
                Integer.getInteger("fencepost.checker.threads", c.threads),
                Integer.getInteger("fencepost.checker.sharedThreads", c.sharedThreads),
                Integer.getInteger("fencepost.checker.keys", c.keys),
                Duration.parse(System.getProperty("fencepost.checker.leaseTime", c.leaseTime.toString())),
                Duration.parse(System.getProperty("fencepost.checker.statementTimeout", c.statementTimeout.toString())),
                Double.parseDouble(System.getProperty("fencepost.checker.frozenShare", Double.toString(c.frozenShare))),
                Double.parseDouble(System.getProperty("fencepost.checker.longShare", Double.toString(c.longShare))),
                Boolean.parseBoolean(System.getProperty("fencepost.checker.faults", "true")),
                Boolean.parseBoolean(System.getProperty("fencepost.checker.ownServer", "true")),
                WorkerMode.valueOf(System.getProperty("fencepost.checker.mode", c.mode.name())),
                Long.getLong("fencepost.checker.seed", c.seed));
    }

    /** This run, in {@code mode}, for {@code duration}. */
    public CheckerConfig with(WorkerMode mode, Duration duration) {
        return new CheckerConfig(
                duration,
                processes,
                threads,
                sharedThreads,
                keys,
                leaseTime,
                statementTimeout,
                frozenShare,
                longShare,
                faults,
                ownServer,
                mode,
                seed);
    }

    /** This run with {@code processes} worker JVMs of {@code threads} threads on {@code keys} keys. */
    public CheckerConfig sized(int processes, int threads, int keys) {
        return new CheckerConfig(
                duration,
                processes,
                threads,
                Math.min(sharedThreads, threads),
                keys,
                leaseTime,
                statementTimeout,
                frozenShare,
                longShare,
                faults,
                ownServer,
                mode,
                seed);
    }

    /** This run with faults on or off, and freezing critical sections at {@code frozenShare}. */
    public CheckerConfig faults(boolean faults, double frozenShare) {
        return new CheckerConfig(
                duration,
                processes,
                threads,
                sharedThreads,
                keys,
                leaseTime,
                statementTimeout,
                frozenShare,
                longShare,
                faults,
                ownServer,
                mode,
                seed);
    }
}
