package io.fencepost.sample.lab;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaMode;
import io.fencepost.lock.spi.LockListener;
import io.fencepost.sample.SampleProperties;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The workers' lock clients: a {@link PostgresLockManager} each, as if every worker were a process of its own, on a
 * small pool of their own (the "lock store connection"), so that cutting it leaves the application's pool, and the
 * resource behind it, untouched.
 */
final class LabLockClients {

    private static final String[] NAMES = {"A", "B", "C", "D", "E", "F", "G", "H"};

    private final SampleProperties.Lab settings;

    private final String instance;

    private final DataSource dataSource;

    private final ObjectProvider<LockListener> listener;

    private final String applicationName;

    /** Read by "kill the store" from a request thread, while a start may be creating it. */
    private volatile HikariDataSource pool;

    private final ReentrantLock creating = new ReentrantLock();

    private List<PostgresLockManager> managers = List.of();

    LabLockClients(
            SampleProperties.Lab settings,
            String instance,
            DataSource dataSource,
            ObjectProvider<LockListener> listener) {
        this.settings = settings;
        this.instance = instance;
        this.dataSource = dataSource;
        this.listener = listener;
        String name = "fencepost-lab-" + instance;
        this.applicationName = name.length() > 60 ? name.substring(0, 60) : name;
    }

    /** The pool's {@code application_name}, by which "kill the store" finds its connections in the database. */
    String applicationName() {
        return applicationName;
    }

    /** Opens a lock client per worker (and the pool, if not yet open), and returns the workers. */
    List<LabWorker> createWorkers(LabExperiment experiment, BooleanSupplier storeDown) {
        HikariDataSource lockPool = pool();
        List<LabWorker> workers = new ArrayList<>();
        List<PostgresLockManager> clients = new ArrayList<>();
        int count = Math.max(2, Math.min(settings.workers(), NAMES.length));
        for (int i = 0; i < count; i++) {
            StoreLink link = new StoreLink(lockPool, storeDown);
            PostgresLockManager client = client("lab-" + NAMES[i] + "@" + instance, link);
            clients.add(client);
            workers.add(new LabWorker(experiment, NAMES[i], client, link));
        }
        managers = clients;
        return workers;
    }

    /**
     * A lock client of its own over {@code link}, named {@code holderName} in the store: a worker's, or one of a
     * walk-through step's. Whoever asks closes it.
     */
    PostgresLockManager client(String holderName, DataSource link) {
        PostgresLockManager.Builder builder = PostgresLockManager.builder(link)
                .holderName(holderName)
                .schemaMode(SchemaMode.NONE) // the application's lock manager has created the schema
                .statementTimeout(Duration.ofSeconds(2));
        // The starter's metrics listener, when there is one: the lab's grants and losses show up in
        // /actuator/metrics/fencepost.lock.* with name=lab.
        listener.ifUnique(builder::listener);
        return builder.build();
    }

    /** The lock clients' pool on the application's database, opened on first use. */
    HikariDataSource pool() {
        HikariDataSource current = pool;
        if (current != null) {
            return current;
        }
        creating.lock();
        try {
            if (pool == null) {
                pool = openPool();
            }
            return pool;
        } finally {
            creating.unlock();
        }
    }

    private HikariDataSource openPool() {
        HikariDataSource app = unwrapHikari();
        HikariDataSource created = new HikariDataSource();
        created.setJdbcUrl(app.getJdbcUrl());
        created.setUsername(app.getUsername());
        created.setPassword(app.getPassword());
        created.setPoolName("lab-lock-store");
        // The workers' clients, and a walk-through step's few clients beside them.
        created.setMaximumPoolSize(settings.workers() * 2 + 12);
        created.setMinimumIdle(0);
        created.setConnectionTimeout(3_000);
        created.addDataSourceProperty("ApplicationName", applicationName);
        return created;
    }

    /** Makes the pool replace its connections, which the store outage has just terminated. */
    void evictConnections() {
        HikariDataSource current = pool;
        if (current != null) {
            current.getHikariPoolMXBean().softEvictConnections();
        }
    }

    void close() {
        managers.forEach(PostgresLockManager::close);
        HikariDataSource current = pool;
        if (current != null) {
            current.close();
        }
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
}
