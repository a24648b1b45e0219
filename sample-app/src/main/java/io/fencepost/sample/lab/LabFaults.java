package io.fencepost.sample.lab;

import io.fencepost.sample.SampleProperties;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The faults the page injects: a holder frozen past its lease, an outage of the lock store, and the resource's
 * fencing turned off (or moved to the transaction). The workers and their store links ask it what is in force.
 */
final class LabFaults {

    private static final String TERMINATE_SQL = """
            SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE application_name = :application AND datname = current_database() AND pid <> pg_backend_pid()
            """;

    private final SampleProperties.Lab settings;

    private final JdbcClient jdbc;

    private final LabLockClients clients;

    private final LabLog log;

    private final LabCounters counters;

    private final ScheduledExecutorService timer;

    private final AtomicReference<LabFencing> fencing = new AtomicReference<>(LabFencing.COLUMN);

    private final AtomicBoolean storeDown = new AtomicBoolean();

    private final AtomicBoolean pendingPause = new AtomicBoolean();

    LabFaults(
            SampleProperties.Lab settings,
            JdbcClient jdbc,
            LabLockClients clients,
            LabLog log,
            LabCounters counters,
            ScheduledExecutorService timer) {
        this.settings = settings;
        this.jdbc = jdbc;
        this.clients = clients;
        this.log = log;
        this.counters = counters;
        this.timer = timer;
    }

    /** The next holder to work (or the one working now) freezes for the pause time. */
    void pauseHolder() {
        pendingPause.set(true);
        log.event(
                null,
                "info",
                "pause requested: the holder will freeze for "
                        + settings.pauseTime().toMillis() + " ms, past its "
                        + settings.leaseTime().toMillis() + " ms lease");
    }

    /** Cuts every lock connection of the workers and refuses new ones for the outage time. */
    void killStore() {
        if (!storeDown.compareAndSet(false, true)) {
            return;
        }
        LabState.Counters before = counters.view();
        long grantsBefore = counters.grantsWhileStoreDown.get();
        // Through the application's pool: the lock pool's own connections are the ones being cut.
        Integer terminated = jdbc.sql(TERMINATE_SQL)
                .param("application", clients.applicationName())
                .query(Integer.class)
                .single();
        clients.evictConnections();
        log.event(
                null,
                "store-down",
                "lock store killed: " + terminated + " lock connection(s) terminated"
                        + " (pg_terminate_backend), new ones refused for "
                        + settings.outageTime().toMillis() + " ms");
        timer.schedule(
                () -> {
                    // Counted before the store is back, so that nothing granted afterwards is blamed on the outage.
                    LabState.Counters after = counters.view();
                    long grants = Math.max(0, counters.grantsWhileStoreDown.get() - grantsBefore);
                    String outcome = outcome(before, after, grants);
                    storeDown.set(false);
                    log.event(null, "store-up", "lock store reachable again; while it was down: " + outcome);
                    log.result("outage", grants == 0 && after.violations() <= before.violations(), outcome);
                },
                settings.outageTime().toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /**
     * What the outage did: acquires failed closed, and (the point) no grant and so no violation. The grants are those
     * of attempts that began during the outage: one that the store made just before it reaches its worker a moment
     * later, and is no grant of the outage.
     */
    private static String outcome(LabState.Counters before, LabState.Counters after, long grants) {
        // A reset during the outage zeroes the counters: count from zero then.
        long failed = after.storeErrors() - Math.min(before.storeErrors(), after.storeErrors());
        long violations = after.violations() - Math.min(before.violations(), after.violations());
        return failed + " acquire(s) failed closed, " + grants + " grant(s), " + violations + " violation(s)";
    }

    /** Protects the resource with a fence column, a fenced transaction, or nothing. */
    void fencing(LabFencing mode) {
        if (fencing.getAndSet(mode) != mode) {
            log.event(null, "fencing", mode.description());
        }
    }

    LabFencing fencing() {
        return fencing.get();
    }

    boolean storeDown() {
        return storeDown.get();
    }

    boolean pausePending() {
        return pendingPause.get();
    }

    /** Claims the requested pause, so that exactly one holder freezes for it. */
    boolean takePause() {
        return pendingPause.compareAndSet(true, false);
    }
}
