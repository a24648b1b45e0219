package io.fencepost.sample.lab;

import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.JdbcLeaseGuard;
import io.fencepost.sample.SampleProperties;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The ground the workers share: the key and lock options they contend with, the resource they write, the faults in
 * force, and the record of what happened (the log, the counters, the highest token granted).
 */
final class LabExperiment {

    private final SampleProperties.Lab settings;

    private final String key;

    private final LockOptions lockOptions;

    private final LabResource resource;

    private final LabLog log;

    private final LabFaults faults;

    private final LabCounters counters;

    private final AtomicLong highestGranted = new AtomicLong();

    private final DataSource transactions;

    private final JdbcLeaseGuard guard = new JdbcLeaseGuard();

    LabExperiment(
            SampleProperties.Lab settings,
            String key,
            LabResource resource,
            LabLog log,
            LabFaults faults,
            LabCounters counters,
            DataSource transactions) {
        this.settings = settings;
        this.transactions = transactions;
        this.key = key;
        this.lockOptions = LabWorker.options(settings.leaseTime());
        this.resource = resource;
        this.log = log;
        this.faults = faults;
        this.counters = counters;
    }

    String key() {
        return key;
    }

    LockOptions lockOptions() {
        return lockOptions;
    }

    SampleProperties.Lab settings() {
        return settings;
    }

    LabResource resource() {
        return resource;
    }

    LabLog log() {
        return log;
    }

    LabCounters counters() {
        return counters;
    }

    LabFencing fencing() {
        return faults.fencing();
    }

    /** Where a worker opens its transaction when the transaction is fenced: the lock table's database. */
    DataSource transactions() {
        return transactions;
    }

    /** Binds a worker's transaction to its lease (the workers' lock clients use the default lock table). */
    JdbcLeaseGuard guard() {
        return guard;
    }

    boolean takePause() {
        return faults.takePause();
    }

    /** The highest token granted so far, which tells a stale holder's accepted write from a current one's. */
    long highestGranted() {
        return highestGranted.get();
    }

    void granted(String worker, long token) {
        highestGranted.accumulateAndGet(token, Math::max);
        log.grant(token, worker);
        log.event(worker, "grant", worker + " is granted the lock with fencing token " + token);
        counters.grants.incrementAndGet();
    }

    /** Zeroes the counter and the statistics. The fence stays: tokens only ever grow. */
    void reset() {
        resource.reset();
        counters.reset();
        log.clear();
        log.event(null, "info", "reset: counter and statistics zeroed");
    }
}
