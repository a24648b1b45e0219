package io.fencepost.lock.jdbc;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The daemon threads on which lock-jdbc makes the calls that an unreachable database can block for longer than the
 * caller may wait (a pool's connection wait, a health probe), so that the caller stops waiting at its own bound.
 * Shared by every store and health of the JVM: a call blocks one of them only as long as the pool or the driver
 * lets it, and calls beyond the threads queue, which the caller's own bound cuts short as well.
 */
final class DatabaseThreads {

    /** Enough for the connection waits of a busy JVM; more would only add threads stuck on the same dead pool. */
    private static final int THREADS = 16;

    private static final AtomicInteger NUMBER = new AtomicInteger();

    private static final ThreadPoolExecutor EXECUTOR = newExecutor();

    private DatabaseThreads() {}

    /** Where blocking database calls run. */
    static Executor executor() {
        return EXECUTOR;
    }

    private static ThreadPoolExecutor newExecutor() {
        ThreadPoolExecutor executor =
                new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
                    Thread thread = new Thread(task, "fencepost-db-" + NUMBER.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        // Idle threads end, so that a JVM that stopped locking keeps none of them.
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }
}
