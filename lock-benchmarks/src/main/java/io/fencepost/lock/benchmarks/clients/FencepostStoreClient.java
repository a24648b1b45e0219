package io.fencepost.lock.benchmarks.clients;

import io.fencepost.lock.jdbc.PostgresLeaseStore;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaInitializer;
import io.fencepost.lock.jdbc.SchemaMode;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.ReleaseRequest;
import java.time.Duration;
import java.util.UUID;

/**
 * Not a way to use Fencepost but evidence of where its time goes: its PostgreSQL store called directly (the same
 * acquire and release statements, through the same statement runner), without the engine around it.
 */
public final class FencepostStoreClient extends PollingLockClient {

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
    public Held tryAcquire(String key) {
        String owner = UUID.randomUUID().toString();
        AcquireResult result = store.acquire(new AcquireRequest(key, owner, "fencepost-bench", leaseTime, false));
        if (!(result instanceof AcquireResult.Granted)) {
            return null;
        }
        return () -> store.release(new ReleaseRequest(key, owner, Duration.ZERO));
    }
}
