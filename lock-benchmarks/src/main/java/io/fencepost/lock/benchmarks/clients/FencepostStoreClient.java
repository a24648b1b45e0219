package io.fencepost.lock.benchmarks.clients;

import io.fencepost.lock.jdbc.PostgresLeaseStore;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaInitializer;
import io.fencepost.lock.jdbc.SchemaMode;
import io.fencepost.lock.spi.AcquireResult;
import java.time.Duration;
import java.util.UUID;

/**
 * Not a way to use Fencepost but evidence of where its time goes: its PostgreSQL store called directly (the same
 * acquire and release statements, through the same statement runner), without the engine around it.
 */
public final class FencepostStoreClient implements LockClient {

    private final PostgresLeaseStore store;

    private final Duration leaseTime;

    public FencepostStoreClient(ClientContext context) {
        new SchemaInitializer(context.dataSource(), PostgresLockManager.DEFAULT_TABLE_NAME).apply(SchemaMode.CREATE);
        this.store = new PostgresLeaseStore(
                context.dataSource(),
                PostgresLockManager.DEFAULT_TABLE_NAME,
                PostgresLockManager.DEFAULT_STATEMENT_TIMEOUT);
        this.leaseTime = context.leaseTime();
    }

    @Override
    public Held acquire(String key, Duration wait) throws Exception {
        return Polling.until(wait, () -> tryAcquire(key));
    }

    @Override
    public Held tryAcquire(String key) {
        String owner = UUID.randomUUID().toString();
        AcquireResult result = store.tryAcquire(key, owner, "fencepost-bench", leaseTime);
        if (!(result instanceof AcquireResult.Granted)) {
            return null;
        }
        return () -> store.release(key, owner, Duration.ZERO);
    }

    @Override
    public void close() {}
}
