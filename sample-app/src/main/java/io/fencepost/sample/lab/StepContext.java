package io.fencepost.sample.lab;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.PostgresLockManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What a walk-through step works with: lock clients of its own (each as if in another process, on the lab's lock
 * pool), the store's view of a key and the store's clock (through the application's own lock manager and pool), the
 * lab's lease time, and the log its events and result go to. Closing it closes the clients the step opened.
 */
final class StepContext implements AutoCloseable {

    private static final String STORE_CLOCK_SQL = """
            SELECT clock_timestamp()
            """;

    private final String instance;

    private final Duration leaseTime;

    private final LabLockClients clients;

    private final LockManager store;

    private final JdbcClient jdbc;

    private final LabLog log;

    private final List<PostgresLockManager> opened = new ArrayList<>();

    StepContext(
            String instance,
            Duration leaseTime,
            LabLockClients clients,
            LockManager store,
            JdbcClient jdbc,
            LabLog log) {
        this.instance = instance;
        this.leaseTime = leaseTime;
        this.clients = clients;
        this.store = store;
        this.jdbc = jdbc;
        this.log = log;
    }

    /** A lock client with a store link of its own, named {@code lab-<name>@<instance>} in the store. */
    record Client(String name, PostgresLockManager locks, StoreLink link) {}

    Client client(String name) {
        StoreLink link = new StoreLink(clients.pool(), () -> false);
        PostgresLockManager locks = clients.client(holderName(name), link);
        opened.add(locks);
        return new Client(name, locks, link);
    }

    /** A lock client on {@code store} (another store than the lab's), named as {@link #client(String)}'s; the caller closes it. */
    PostgresLockManager client(String name, DataSource store) {
        return clients.client(holderName(name), store);
    }

    String holderName(String name) {
        return "lab-" + name + "@" + instance;
    }

    /** The step's own key: {@code lab:<instance>:<step>}. */
    String key(String step) {
        return "lab:" + instance + ":" + step;
    }

    Duration leaseTime() {
        return leaseTime;
    }

    /** The lab's lease, renewed, and a wait of {@code wait}. */
    LockOptions options(Duration wait) {
        return LockOptions.builder()
                .leaseTime(leaseTime)
                .waitTime(wait)
                .name("lab")
                .build();
    }

    /** The store's view of {@code key}: its live lease, if any. */
    Optional<LeaseInfo> inspect(String key) {
        return store.inspect(key);
    }

    /** Now, by the store's clock. */
    Instant storeNow() {
        return jdbc.sql(STORE_CLOCK_SQL).query(Instant.class).single();
    }

    void event(String step, String text) {
        log.event(null, step, text);
    }

    void result(String step, boolean asPromised, String text) {
        log.event(null, step, text);
        log.result(step, asPromised, text);
    }

    @Override
    public void close() {
        opened.forEach(PostgresLockManager::close);
    }
}
