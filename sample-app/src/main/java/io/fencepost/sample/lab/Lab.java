package io.fencepost.sample.lab;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.spi.LockListener;
import io.fencepost.sample.SampleProperties;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Runs the lab's experiments on a real PostgreSQL: a few workers, each with a lock client of its own, contend for
 * {@code lab:<instance>} and increment a counter under it. The page can pause the holder past its lease, cut the lock
 * store, and turn the resource's fencing off; the lab counts what follows. The walk-through's other steps (the race,
 * a holder that dies, a stale release, renewal) run once each, on keys of their own, when the page asks.
 *
 * <p>This class starts and stops the workers and answers the page; the workers' shared ground is
 * {@link LabExperiment}, the faults are {@link LabFaults}, the workers' lock clients are {@link LabLockClients}, and
 * the steps are {@link LabSteps}.
 */
@Component
public class Lab implements InitializingBean, DisposableBean {

    private static final Logger LOG = LoggerFactory.getLogger(Lab.class);

    private final SampleProperties.Lab settings;

    private final String instance;

    private final LockManager lockManager;

    private final LabLog log = new LabLog();

    private final ReentrantLock lifecycle = new ReentrantLock();

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "lab-timer");
        thread.setDaemon(true);
        return thread;
    });

    private final LabLockClients clients;

    private final LabFaults faults;

    private final LabExperiment experiment;

    private final LabSteps steps;

    private final FailoverGround ground = new FailoverGround();

    private volatile long lastSeenNanos = System.nanoTime();

    private List<LabWorker> workers = List.of();

    private List<Thread> threads = List.of();

    public Lab(
            SampleProperties properties,
            LockManager lockManager,
            DataSource dataSource,
            JdbcClient jdbc,
            ObjectProvider<LockListener> listener) {
        this.settings = properties.lab();
        this.instance = properties.instanceName();
        this.lockManager = lockManager;
        this.clients = new LabLockClients(settings, instance, dataSource, listener);
        LabCounters counters = new LabCounters();
        this.faults = new LabFaults(settings, jdbc, clients, log, counters, timer);
        this.experiment = new LabExperiment(
                settings, "lab:" + instance, new LabResource(jdbc, instance), log, faults, counters, dataSource);
        FailoverTally asynchronous = new FailoverTally();
        FailoverTally synchronous = new FailoverTally();
        LabResource failoverResource = new LabResource(jdbc, "failover:" + instance);
        this.steps = new LabSteps(
                List.of(
                        new RaceStep(),
                        new DeadHolderStep(),
                        new StaleReleaseStep(),
                        new RenewalStep(),
                        new FailoverStep(false, ground, asynchronous, synchronous, failoverResource, faults::fencing),
                        new FailoverStep(true, ground, synchronous, asynchronous, failoverResource, faults::fencing)),
                () -> new StepContext(instance, settings.leaseTime(), clients, lockManager, jdbc, log),
                log);
    }

    /** Starts the idle check once the lab is fully built (the timer's task calls back into it). */
    @Override
    public void afterPropertiesSet() {
        // The failover step's databases that a process killed with kill -9 left running: stopped and deleted now.
        FailoverGround.sweep();
        long idleCheck = Math.max(1, settings.idleTimeout().toMillis() / 4);
        timer.scheduleWithFixedDelay(this::stopWhenIdle, idleCheck, idleCheck, TimeUnit.MILLISECONDS);
    }

    /** Starts the workers (once; later calls only count as a visit). */
    public void start() {
        lastSeenNanos = System.nanoTime();
        lifecycle.lock();
        try {
            if (!threads.isEmpty()) {
                return;
            }
            if (workers.isEmpty()) {
                workers = clients.createWorkers(experiment, faults::storeDown);
            }
            experiment.resource().init();
            List<Thread> started = new ArrayList<>();
            for (LabWorker worker : workers) {
                worker.resume();
                Thread thread = new Thread(worker, "lab-worker-" + worker.name());
                thread.setDaemon(true);
                started.add(thread);
            }
            threads = started;
            log.event(
                    null,
                    "info",
                    workers.size() + " workers contend for '" + experiment.key() + "'; lease "
                            + settings.leaseTime().toMillis() + " ms, fencing "
                            + faults.fencing().id());
            started.forEach(Thread::start);
        } finally {
            lifecycle.unlock();
        }
    }

    /** Stops the workers; their lock clients stay for the next start. */
    public void stop() {
        List<Thread> running;
        lifecycle.lock();
        try {
            running = threads;
            threads = List.of();
            workers.forEach(LabWorker::halt);
        } finally {
            lifecycle.unlock();
        }
        if (running.isEmpty()) {
            return;
        }
        running.forEach(Thread::interrupt);
        for (Thread thread : running) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        log.event(null, "info", "workers stopped");
    }

    /** Zeroes the counter and the statistics. The fence stays: tokens only ever grow. */
    public void reset() {
        steps.reset();
        experiment.reset();
    }

    /** The next holder to work (or the one working now) freezes for the pause time. */
    public void pauseHolder() {
        faults.pauseHolder();
    }

    /**
     * Runs a step of the walk-through (race, dead-holder, stale-release, renewal, failover-async, failover-sync) in the
     * background.
     *
     * @return false when a step is running already
     * @throws IllegalArgumentException for an unknown step
     */
    public boolean runStep(String id) {
        lastSeenNanos = System.nanoTime();
        return steps.start(id);
    }

    /** Cuts every lock connection of the workers and refuses new ones for the outage time. */
    public void killStore() {
        faults.killStore();
    }

    /** Turns the resource's fencing check on or off. */
    public void fencing(boolean enabled) {
        faults.fencing(enabled ? LabFencing.COLUMN : LabFencing.OFF);
    }

    /**
     * Protects the resource with a fence column ({@code column}), a fenced transaction ({@code transaction}) or
     * nothing ({@code off}).
     *
     * @throws IllegalArgumentException for another mode
     */
    public void fencing(String mode) {
        faults.fencing(LabFencing.parse(mode));
    }

    /** The page's view; {@code since} is the last event it has. */
    public LabState state(long since) {
        lastSeenNanos = System.nanoTime();
        List<LabWorker> current;
        boolean running;
        lifecycle.lock();
        try {
            current = workers;
            running = !threads.isEmpty();
        } finally {
            lifecycle.unlock();
        }
        LabResource.State row = experiment.resource().state();
        LabCounters counters = experiment.counters();
        List<LabState.Grant> grants = log.grants();
        return new LabState(
                running,
                faults.fencing() == LabFencing.COLUMN,
                faults.fencing().id(),
                faults.storeDown(),
                faults.pausePending(),
                instance,
                experiment.key(),
                holder(grants),
                current.stream().map(LabWorker::view).toList(),
                counters.view(),
                new LabState.Resource(
                        row.value(),
                        row.version(),
                        row.fence(),
                        row.lastWriter(),
                        row.lastToken(),
                        row.version(),
                        row.lostUpdates()),
                grants,
                log.pinned(),
                log.results(),
                steps.running(),
                log.eventsSince(since),
                new LabState.Settings(
                        settings.leaseTime().toMillis(),
                        settings.workTime().toMillis(),
                        settings.pauseTime().toMillis(),
                        settings.outageTime().toMillis()));
    }

    /**
     * The store's view of the key, read after the grant table: a grant the store made since, which its worker has not
     * heard of yet, is marked as such rather than shown beside a table that lacks it.
     */
    private LabState.Holder holder(List<LabState.Grant> grants) {
        Optional<LeaseInfo> lease = lockManager.inspect(experiment.key());
        return lease.map(info -> new LabState.Holder(
                        info.holder(),
                        workerOf(info.holder()),
                        info.fencingToken(),
                        Math.max(
                                0,
                                Duration.between(Instant.now(), info.expiresAt())
                                        .toMillis()),
                        grants.stream().anyMatch(grant -> grant.fencingToken() == info.fencingToken())))
                .orElse(null);
    }

    private String workerOf(String holder) {
        String prefix = "lab-";
        int at = holder.indexOf('@');
        return holder.startsWith(prefix) && at > prefix.length() ? holder.substring(prefix.length(), at) : null;
    }

    private void stopWhenIdle() {
        boolean running;
        lifecycle.lock();
        try {
            running = !threads.isEmpty();
        } finally {
            lifecycle.unlock();
        }
        if (running
                && System.nanoTime() - lastSeenNanos > settings.idleTimeout().toNanos()) {
            LOG.info("no lab page has polled for {}: stopping the lab's workers", settings.idleTimeout());
            stop();
        }
    }

    @Override
    public void destroy() {
        timer.shutdownNow();
        steps.close();
        ground.close();
        stop();
        clients.close();
    }
}
