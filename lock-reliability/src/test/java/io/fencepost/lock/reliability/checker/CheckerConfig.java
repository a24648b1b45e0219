package io.fencepost.lock.reliability.checker;

import java.time.Duration;
import java.util.List;

/**
 * The shape of one checker run.
 *
 * @param duration how long the workers lock (faults stop a little earlier)
 * @param processes worker JVMs
 * @param threads threads per worker
 * @param sharedThreads of those, how many share lock managers (the others have one each, and may freeze)
 * @param sharedManagers how many managers the shared threads are spread over, round robin: several managers per JVM
 *     with several threads each is how applications run, and it mixes local hand-overs with other clients' acquires
 * @param keys distinct keys of exclusive leases only
 * @param mixedKeys keys of shared leases mixed with exclusive ones
 * @param permitKeys keys of permits: the first has {@code permits}, the next one more, and so on
 * @param permits the permits of the first permit key (at least 2)
 * @param modeThreads threads per worker, besides {@code threads}, that lock the mixed and permit keys, half of them
 *     with a manager each (which may freeze), half sharing one
 * @param sharedShare probability that a section on a mixed key asks for a shared lease rather than an exclusive one
 * @param hotKeyShare probability that a shared thread picks the first key (the hot one) rather than any key
 * @param leaseTime lease time of every grant
 * @param statementTimeout the lock managers' statement timeout
 * @param frozenShare probability that a critical section of a thread with its own manager freezes past its lease
 * @param longShare probability that a critical section (not frozen) works for one to three lease times, renewed
 * @param zeroHoldShare probability that a shared thread's critical section releases at once, writing nothing
 * @param faults whether to inject faults
 * @param ownServer whether to run on a PostgreSQL of the run's own (then the database is also crashed and
 *     restarted); else on the shared test server
 * @param pgBouncer whether the workers reach the server through PgBouncer in transaction mode (between their proxies
 *     and the server), where no session lock is a connection's: the lock queue is off and waiters are woken by
 *     notifications and re-checks, the fallback path
 * @param cluster whether to run on a three-node Patroni cluster in network namespaces instead (then the faults are
 *     switchovers, failovers and partitions, besides those that need no proxy), and how it replicates
 * @param mode what the workers run
 * @param seed the seed of every random choice in the workers (the fault schedule has its own, from it)
 */
public record CheckerConfig(
        Duration duration,
        int processes,
        int threads,
        int sharedThreads,
        int sharedManagers,
        int keys,
        int mixedKeys,
        int permitKeys,
        int permits,
        int modeThreads,
        double sharedShare,
        double hotKeyShare,
        Duration leaseTime,
        Duration statementTimeout,
        double frozenShare,
        double longShare,
        double zeroHoldShare,
        boolean faults,
        boolean ownServer,
        boolean pgBouncer,
        Cluster cluster,
        WorkerMode mode,
        long seed) {

    /** Where the run's database lives. */
    public enum Cluster {
        /** A single server: the run's own, or the shared test server. */
        NONE,
        /** A Patroni cluster with {@code synchronous_mode} and {@code synchronous_mode_strict}. */
        PATRONI_SYNCHRONOUS,
        /** A Patroni cluster replicating asynchronously: the contrast run, where grants are lost. */
        PATRONI_ASYNCHRONOUS
    }

    public CheckerConfig {
        if (permitKeys > 0 && permits < 2) {
            throw new IllegalArgumentException("a permit key needs at least 2 permits, was " + permits);
        }
        if (modeThreads > 0 && mixedKeys + permitKeys == 0) {
            throw new IllegalArgumentException(
                    "mode threads (" + modeThreads + ") need mixed or permit keys to lock, there are none");
        }
        if (sharedThreads > threads || (sharedThreads > 0 && sharedManagers < 1)) {
            throw new IllegalArgumentException("shared threads (" + sharedThreads + ") must be at most the threads ("
                    + threads + ") and spread over at least one manager (" + sharedManagers + ")");
        }
    }

    /**
     * The run of {@code mvn verify}: a minute of locking under faults, three JVMs, each with three managers of two
     * threads on a hot key (mostly releasing at once), two threads with a manager each doing everything else on two
     * more exclusive keys, and four threads on a key of shared and exclusive leases and a key of 3 permits.
     */
    public static CheckerConfig ci() {
        return new Builder().build();
    }

    /** {@link #ci()} with the settings of system properties {@code fencepost.checker.*} applied. */
    public static CheckerConfig fromSystemProperties() {
        CheckerConfig c = ci();
        return c.toBuilder()
                .duration(Duration.parse(System.getProperty("fencepost.checker.duration", c.duration.toString())))
                .processes(Integer.getInteger("fencepost.checker.processes", c.processes))
                .threads(Integer.getInteger("fencepost.checker.threads", c.threads))
                .sharedThreads(Integer.getInteger("fencepost.checker.sharedThreads", c.sharedThreads))
                .sharedManagers(Integer.getInteger("fencepost.checker.sharedManagers", c.sharedManagers))
                .keys(Integer.getInteger("fencepost.checker.keys", c.keys))
                .mixedKeys(Integer.getInteger("fencepost.checker.mixedKeys", c.mixedKeys))
                .permitKeys(Integer.getInteger("fencepost.checker.permitKeys", c.permitKeys))
                .permits(Integer.getInteger("fencepost.checker.permits", c.permits))
                .modeThreads(Integer.getInteger("fencepost.checker.modeThreads", c.modeThreads))
                .sharedShare(doubleProperty("sharedShare", c.sharedShare))
                .hotKeyShare(doubleProperty("hotKeyShare", c.hotKeyShare))
                .leaseTime(Duration.parse(System.getProperty("fencepost.checker.leaseTime", c.leaseTime.toString())))
                .statementTimeout(Duration.parse(
                        System.getProperty("fencepost.checker.statementTimeout", c.statementTimeout.toString())))
                .frozenShare(doubleProperty("frozenShare", c.frozenShare))
                .longShare(doubleProperty("longShare", c.longShare))
                .zeroHoldShare(doubleProperty("zeroHoldShare", c.zeroHoldShare))
                .faults(Boolean.parseBoolean(System.getProperty("fencepost.checker.faults", "true")))
                .ownServer(Boolean.parseBoolean(System.getProperty("fencepost.checker.ownServer", "true")))
                .pgBouncer(Boolean.parseBoolean(
                        System.getProperty("fencepost.checker.pgBouncer", Boolean.toString(c.pgBouncer))))
                .cluster(Cluster.valueOf(System.getProperty("fencepost.checker.cluster", c.cluster.name())))
                .mode(WorkerMode.valueOf(System.getProperty("fencepost.checker.mode", c.mode.name())))
                .seed(Long.getLong("fencepost.checker.seed", c.seed))
                .build();
    }

    private static double doubleProperty(String name, double fallback) {
        return Double.parseDouble(System.getProperty("fencepost.checker." + name, Double.toString(fallback)));
    }

    /** Every key of the run with what its callers ask for. */
    List<KeyPlan> keyPlans() {
        return KeyPlan.of(keys, mixedKeys, permitKeys, permits);
    }

    /** A builder starting from this run. */
    public Builder toBuilder() {
        return new Builder()
                .duration(duration)
                .processes(processes)
                .threads(threads)
                .sharedThreads(sharedThreads)
                .sharedManagers(sharedManagers)
                .keys(keys)
                .mixedKeys(mixedKeys)
                .permitKeys(permitKeys)
                .permits(permits)
                .modeThreads(modeThreads)
                .sharedShare(sharedShare)
                .hotKeyShare(hotKeyShare)
                .leaseTime(leaseTime)
                .statementTimeout(statementTimeout)
                .frozenShare(frozenShare)
                .longShare(longShare)
                .zeroHoldShare(zeroHoldShare)
                .faults(faults)
                .ownServer(ownServer)
                .pgBouncer(pgBouncer)
                .cluster(cluster)
                .mode(mode)
                .seed(seed);
    }

    /** This run, in {@code mode}, for {@code duration}. */
    public CheckerConfig with(WorkerMode mode, Duration duration) {
        return toBuilder().mode(mode).duration(duration).build();
    }

    /** Builds a {@link CheckerConfig}, starting from the run of {@code mvn verify}. */
    public static final class Builder {
        private Duration duration = Duration.ofSeconds(60);
        private int processes = 3;
        private int threads = 8;
        private int sharedThreads = 6;
        private int sharedManagers = 3;
        private int keys = 3;
        private int mixedKeys = 1;
        private int permitKeys = 1;
        private int permits = 3;
        private int modeThreads = 4;
        private double sharedShare = 0.75;
        private double hotKeyShare = 0.95;
        private Duration leaseTime = Duration.ofMillis(1500);
        private Duration statementTimeout = Duration.ofMillis(1000);
        private double frozenShare = 0.08;
        private double longShare = 0.06;
        private double zeroHoldShare = 0.95;
        private boolean faults = true;
        private boolean ownServer = true;
        private boolean pgBouncer;
        private Cluster cluster = Cluster.NONE;
        private WorkerMode mode = WorkerMode.CORRECT;
        private long seed = System.nanoTime();

        public Builder duration(Duration duration) {
            this.duration = duration;
            return this;
        }

        public Builder processes(int processes) {
            this.processes = processes;
            return this;
        }

        public Builder threads(int threads) {
            this.threads = threads;
            return this;
        }

        public Builder sharedThreads(int sharedThreads) {
            this.sharedThreads = sharedThreads;
            return this;
        }

        public Builder sharedManagers(int sharedManagers) {
            this.sharedManagers = sharedManagers;
            return this;
        }

        public Builder keys(int keys) {
            this.keys = keys;
            return this;
        }

        public Builder mixedKeys(int mixedKeys) {
            this.mixedKeys = mixedKeys;
            return this;
        }

        public Builder permitKeys(int permitKeys) {
            this.permitKeys = permitKeys;
            return this;
        }

        public Builder permits(int permits) {
            this.permits = permits;
            return this;
        }

        public Builder modeThreads(int modeThreads) {
            this.modeThreads = modeThreads;
            return this;
        }

        public Builder sharedShare(double sharedShare) {
            this.sharedShare = sharedShare;
            return this;
        }

        public Builder hotKeyShare(double hotKeyShare) {
            this.hotKeyShare = hotKeyShare;
            return this;
        }

        public Builder leaseTime(Duration leaseTime) {
            this.leaseTime = leaseTime;
            return this;
        }

        public Builder statementTimeout(Duration statementTimeout) {
            this.statementTimeout = statementTimeout;
            return this;
        }

        public Builder frozenShare(double frozenShare) {
            this.frozenShare = frozenShare;
            return this;
        }

        public Builder longShare(double longShare) {
            this.longShare = longShare;
            return this;
        }

        public Builder zeroHoldShare(double zeroHoldShare) {
            this.zeroHoldShare = zeroHoldShare;
            return this;
        }

        public Builder faults(boolean faults) {
            this.faults = faults;
            return this;
        }

        public Builder ownServer(boolean ownServer) {
            this.ownServer = ownServer;
            return this;
        }

        public Builder pgBouncer(boolean pgBouncer) {
            this.pgBouncer = pgBouncer;
            return this;
        }

        public Builder cluster(Cluster cluster) {
            this.cluster = cluster;
            return this;
        }

        public Builder mode(WorkerMode mode) {
            this.mode = mode;
            return this;
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public CheckerConfig build() {
            return new CheckerConfig(
                    duration,
                    processes,
                    threads,
                    sharedThreads,
                    sharedManagers,
                    keys,
                    mixedKeys,
                    permitKeys,
                    permits,
                    modeThreads,
                    sharedShare,
                    hotKeyShare,
                    leaseTime,
                    statementTimeout,
                    frozenShare,
                    longShare,
                    zeroHoldShare,
                    faults,
                    ownServer,
                    pgBouncer,
                    cluster,
                    mode,
                    seed);
        }
    }
}
