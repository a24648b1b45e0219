package io.fencepost.sample.lab;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaMode;
import io.fencepost.lock.spi.LockListener;
import io.fencepost.sample.SampleProperties;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Runs the design walk-through's experiments on a real PostgreSQL: a few workers, each with a lock client of its
 * own, contend for {@code lab:<instance>} and increment a counter under it. The page can pause the holder past its
 * lease, cut the lock store, and turn the resource's fencing off; the lab counts what follows.
 *
 * <p>The workers' lock clients use a small pool of their own (the "lock store connection"), so that cutting it
 * leaves the application's pool, and the resource behind it, untouched.
 */
@Component
public class Lab implements DisposableBean {

    private static final Logger LOG = LoggerFactory.getLogger(Lab.class);

    private static final String TERMINATE_SQL = """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE application_name = :application AND datname = current_database() AND pid <> pg_backend_pid()
            """;

    private static final String[] NAMES = {"A", "B", "C", "D", "E", "F", "G", "H"};

    private final SampleProperties.Lab settings;

    private final String instance;

    private final String key;

    private final LockManager lockManager;

    private final DataSource dataSource;

    private final JdbcClient jdbc;

    private final LabResource resource;

    private final LabLog log = new LabLog();

    private final Counters counters = new Counters();

    private final LockOptions lockOptions;

    private final AtomicBoolean fencing = new AtomicBoolean(true);

    private final AtomicBoolean storeDown = new AtomicBoolean();

    private final AtomicBoolean pendingPause = new AtomicBoolean();

    private final AtomicLong highestGranted = new AtomicLong();

    private final ReentrantLock lifecycle = new ReentrantLock();

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "lab-timer");
        thread.setDaemon(true);
        return thread;
    });

    private volatile long lastSeenNanos = System.nanoTime();

    private HikariDataSource lockPool;

    private List<LabWorker> workers = List.of();

    private List<Thread> threads = List.of();

    private List<PostgresLockManager> managers = List.of();

    private final ObjectProvider<LockListener> listener;

    public Lab(
            SampleProperties properties,
            LockManager lockManager,
            DataSource dataSource,
            JdbcClient jdbc,
            ObjectProvider<LockListener> listener) {
        this.listener = listener;
        this.settings = properties.lab();
        this.instance = properties.instanceName();
        this.key = "lab:" + instance;
        this.lockManager = lockManager;
        this.dataSource = dataSource;
        this.jdbc = jdbc;
        this.resource = new LabResource(jdbc, instance);
        this.lockOptions = LabWorker.options(settings.leaseTime());
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
            if (managers.isEmpty()) {
                createClients();
            }
            resource.init();
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
                    workers.size() + " workers contend for '" + key + "'; lease "
                            + settings.leaseTime().toMillis() + " ms, fencing " + (fencing.get() ? "on" : "off"));
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
        resource.reset();
        counters.reset();
        log.clear();
        log.event(null, "info", "reset: counter and statistics zeroed");
    }

    /** The next holder to work (or the one working now) freezes for the pause time. */
    public void pauseHolder() {
        pendingPause.set(true);
        log.event(
                null,
                "info",
                "pause requested: the holder will freeze for "
                        + settings.pauseTime().toMillis() + " ms, past its "
                        + settings.leaseTime().toMillis() + " ms lease");
    }

    /** Cuts every lock connection of the workers and refuses new ones for the outage time. */
    public void killStore() {
        if (!storeDown.compareAndSet(false, true)) {
            return;
        }
        Integer terminated = jdbc.sql(TERMINATE_SQL)
                .param("application", applicationName())
                .query(Integer.class)
                .single();
        HikariDataSource pool = lockPool;
        if (pool != null) {
            pool.getHikariPoolMXBean().softEvictConnections();
        }
        log.event(
                null,
                "store-down",
                "lock store killed: " + terminated + " lock connection(s) terminated"
                        + " (pg_terminate_backend), new ones refused for "
                        + settings.outageTime().toMillis() + " ms");
        timer.schedule(
                () -> {
                    storeDown.set(false);
                    log.event(null, "store-up", "lock store reachable again");
                },
                settings.outageTime().toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Turns the resource's fencing check on or off. */
    public void fencing(boolean enabled) {
        if (fencing.getAndSet(enabled) != enabled) {
            log.event(
                    null,
                    "fencing",
                    enabled
                            ? "fencing ON: the resource refuses tokens lower than the highest it has seen"
                            : "fencing OFF: the resource accepts every write; only the lock stands between workers");
        }
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
        LabResource.State row = resource.state();
        return new LabState(
                running,
                fencing.get(),
                storeDown.get(),
                pendingPause.get(),
                instance,
                key,
                holder(),
                current.stream().map(LabWorker::view).toList(),
                counters.view(),
                new LabState.Resource(
                        row.value(),
                        row.version(),
                        row.fence(),
                        row.lastWriter(),
                        row.lastToken(),
                        counters.writesAccepted.get()),
                log.grants(),
                log.eventsSince(since),
                new LabState.Settings(
                        settings.leaseTime().toMillis(),
                        settings.workTime().toMillis(),
                        settings.pauseTime().toMillis(),
                        settings.outageTime().toMillis()));
    }

    private LabState.Holder holder() {
        Optional<LeaseInfo> lease = lockManager.inspect(key);
        return lease.map(info -> new LabState.Holder(
                        info.holder(),
                        workerOf(info.holder()),
                        info.fencingToken(),
                        Math.max(
                                0,
                                Duration.between(Instant.now(), info.expiresAt())
                                        .toMillis())))
                .orElse(null);
    }

    private String workerOf(String holder) {
        String prefix = "lab-";
        int at = holder.indexOf('@');
        return holder.startsWith(prefix) && at > prefix.length() ? holder.substring(prefix.length(), at) : null;
    }

    private void createClients() {
        HikariDataSource app = unwrapHikari();
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(app.getJdbcUrl());
        pool.setUsername(app.getUsername());
        pool.setPassword(app.getPassword());
        pool.setPoolName("lab-lock-store");
        pool.setMaximumPoolSize(settings.workers() * 2 + 2);
        pool.setMinimumIdle(0);
        pool.setConnectionTimeout(3_000);
        pool.addDataSourceProperty("ApplicationName", applicationName());
        lockPool = pool;
        List<LabWorker> created = new ArrayList<>();
        List<PostgresLockManager> clients = new ArrayList<>();
        int count = Math.max(2, Math.min(settings.workers(), NAMES.length));
        for (int i = 0; i < count; i++) {
            StoreLink link = new StoreLink(pool, storeDown::get);
            PostgresLockManager.Builder builder = PostgresLockManager.builder(link)
                    .holderName("lab-" + NAMES[i] + "@" + instance)
                    .schemaMode(SchemaMode.NONE) // the application's lock manager has created the schema
                    .statementTimeout(Duration.ofSeconds(2));
            // The starter's metrics listener, when there is one: the lab's grants and losses show up in
            // /actuator/metrics/fencepost.lock.* with name=lab.
            listener.ifUnique(builder::listener);
            PostgresLockManager client = builder.build();
            clients.add(client);
            created.add(new LabWorker(this, NAMES[i], client, link));
        }
        managers = clients;
        workers = created;
    }

    private HikariDataSource unwrapHikari() {
        try {
            if (dataSource.isWrapperFor(HikariDataSource.class)) {
                return dataSource.unwrap(HikariDataSource.class);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not unwrap the application's DataSource", e);
        }
        throw new IllegalStateException("the lab needs the application's DataSource to be a HikariDataSource (Spring"
                + " Boot's default), to give its workers a lock pool on the same database; was " + dataSource);
    }

    private String applicationName() {
        String name = "fencepost-lab-" + instance;
        return name.length() > 60 ? name.substring(0, 60) : name;
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
        stop();
        managers.forEach(PostgresLockManager::close);
        if (lockPool != null) {
            lockPool.close();
        }
    }

    // For the workers.

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

    Counters counters() {
        return counters;
    }

    boolean fencing() {
        return fencing.get();
    }

    boolean takePause() {
        return pendingPause.compareAndSet(true, false);
    }

    long highestGranted() {
        return highestGranted.get();
    }

    void granted(String worker, long token) {
        highestGranted.accumulateAndGet(token, Math::max);
        counters.grants.incrementAndGet();
        log.grant(token, worker);
        log.event(worker, "grant", worker + " is granted the lock with fencing token " + token);
    }

    /** What happened since the last reset. */
    static final class Counters {

        final AtomicLong grants = new AtomicLong();

        final AtomicLong writesAccepted = new AtomicLong();

        final AtomicLong writesRejected = new AtomicLong();

        final AtomicLong violations = new AtomicLong();

        final AtomicLong storeErrors = new AtomicLong();

        final AtomicLong leasesLost = new AtomicLong();

        LabState.Counters view() {
            return new LabState.Counters(
                    grants.get(),
                    writesAccepted.get(),
                    writesRejected.get(),
                    violations.get(),
                    storeErrors.get(),
                    leasesLost.get());
        }

        void reset() {
            grants.set(0);
            writesAccepted.set(0);
            writesRejected.set(0);
            violations.set(0);
            storeErrors.set(0);
            leasesLost.set(0);
        }
    }
}
