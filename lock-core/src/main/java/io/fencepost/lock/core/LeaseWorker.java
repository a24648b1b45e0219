package io.fencepost.lock.core;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToLongFunction;

/**
 * A background thread of one manager that works on the leases it holds: it sleeps until the earliest time one of
 * them needs it, and a new lease that needs it sooner wakes it.
 */
abstract class LeaseWorker implements AutoCloseable {

    private static final AtomicInteger THREADS = new AtomicInteger();

    /** Idle re-check interval when nothing is due. */
    static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The leases to work on; a worker drops those it is done with. */
    final Set<HeldLease> leases = ConcurrentHashMap.newKeySet();

    /** Where losses and renewals are reported. */
    final LeaseEvents events;

    /** When ({@link System#nanoTime()}) a lease next needs this worker. */
    private final ToLongFunction<HeldLease> due;

    /** The worker's thread; wake it when a lease needs it sooner than planned. */
    final BackgroundLoop thread;

    LeaseWorker(String threadName, ToLongFunction<HeldLease> due, LeaseEvents events) {
        this.due = due;
        this.events = events;
        this.thread = new BackgroundLoop(threadName + "-" + THREADS.incrementAndGet(), this::work);
    }

    /** Starts working on {@code lease}. */
    void register(HeldLease lease) {
        leases.add(lease);
        // Wake the thread only when the new lease needs it sooner than it planned to wake anyway: waking on every
        // grant would cut the work into tiny batches while many leases are being taken.
        thread.wakeIfLaterThan(due.applyAsLong(lease));
    }

    void unregister(HeldLease lease) {
        leases.remove(lease);
    }

    /** Does what is due; returns when ({@link System#nanoTime()}) to look again. */
    abstract long work();

    @Override
    public void close() {
        thread.close();
    }
}
