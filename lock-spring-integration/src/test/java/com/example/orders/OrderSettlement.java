package com.example.orders;

import io.fencepost.lock.integration.FencepostLockRegistry;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/** Settles an order under the registry's lock, and hands the lock's fencing token to the database. */
@Service
public class OrderSettlement {

    /** Writes only if no later holder of the lock has: the database keeps the highest token it has seen. */
    private static final String SETTLE_SQL =
            "UPDATE orders SET settlements = settlements + 1, fence = :token WHERE id = :id AND fence <= :token";

    private final FencepostLockRegistry registry;

    private final JdbcClient jdbc;

    public OrderSettlement(FencepostLockRegistry registry, JdbcClient jdbc) {
        this.registry = registry;
        this.jdbc = jdbc;
    }

    /** Whether the settlement was written: false when a later holder of the lock has written already. */
    public boolean settle(long orderId) {
        String key = "orders:" + orderId;
        DistributedLock lock = registry.obtain(key);
        lock.lock();
        try {
            // New with Fencepost: the hold's fencing token, larger than that of every earlier hold of the key.
            long token = registry.currentLease(key).orElseThrow().fencingToken();
            int written = jdbc.sql(SETTLE_SQL)
                    .param("token", token)
                    .param("id", orderId)
                    .update();
            return written == 1;
        } finally {
            lock.unlock();
        }
    }
}
