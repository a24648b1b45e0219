package io.fencepost.lock.jdbc;

import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.FairQueue;
import io.fencepost.lock.spi.QueueTicket;
import io.fencepost.lock.spi.StoreLimits;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Fair mode on PostgreSQL: a queue table ({@code <table>_queue}) of tickets drawn from the fencing sequence, and an
 * acquire that grants only to the lowest live ticket of the key. A waiter's attempts refresh its client's tickets; a
 * dead client's tickets lapse, so they cannot hold up the queue for longer than their lifetime.
 */
final class PostgresFairQueue implements FairQueue {

    private final StatementRunner runner;

    private final PostgresStatements statements;

    PostgresFairQueue(StatementRunner runner, PostgresStatements statements) {
        this.runner = runner;
        this.statements = statements;
    }

    @Override
    public QueueTicket enqueue(String key, String waiterId, Duration ttl) {
        Objects.requireNonNull(key, "key");
        long number = runner.run(
                "queue for lock '" + key + "'",
                List.of(),
                statements.enqueue,
                Map.of(
                        "key", key,
                        "waiter", UUID.fromString(waiterId),
                        "ttl_ms", StatementRunner.millis(ttl, "ticket lifetime", key)),
                rows -> {
                    rows.next();
                    return rows.getLong(1);
                });
        return new QueueTicket(key, waiterId, number, ttl);
    }

    @Override
    public AcquireResult acquireInTurn(AcquireRequest request, QueueTicket ticket) {
        return PostgresLeaseStore.acquire(
                runner,
                statements.fairAcquire,
                request,
                Map.of(
                        "ticket", ticket.number(),
                        "waiter", UUID.fromString(ticket.waiterId()),
                        "ttl_ms", StatementRunner.millis(ticket.ttl(), "ticket lifetime", request.key()),
                        "precedence_ms", StoreLimits.EXCLUSIVE_PRECEDENCE.toMillis()));
    }

    @Override
    public void dequeue(QueueTicket ticket) {
        runner.run(
                "leave the queue of lock '" + ticket.key() + "'",
                List.of(),
                statements.dequeue,
                Map.of("key", ticket.key(), "ticket", ticket.number()),
                rows -> null);
    }
}
