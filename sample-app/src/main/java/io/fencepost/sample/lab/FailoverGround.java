package io.fencepost.sample.lab;

import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.sample.db.DataDirectories;
import io.fencepost.sample.db.ReplicatedPair;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where the failover steps' databases live: this process's folder under {@code <tmp>/fencepost-lab-failover}, the
 * template every primary and standby is copied from (made once, with the lock table), and a folder per failover.
 * Folders of a process that died without cleaning up are swept when the lab starts; this process's own, when it stops.
 */
final class FailoverGround implements AutoCloseable {

    static final Path BASE = Path.of(System.getProperty("java.io.tmpdir"), "fencepost-lab-failover");

    private final ReentrantLock making = new ReentrantLock();

    private final AtomicInteger pairs = new AtomicInteger();

    private Path run;

    private Path template;

    /** Sweeps what a dead process left behind; returns how many of its folders went. */
    static int sweep() {
        return DataDirectories.sweep(BASE);
    }

    /** The template, made on first use: a cleanly stopped cluster with the lock table. */
    Path template() {
        making.lock();
        try {
            if (template == null) {
                run = DataDirectories.ownRun(BASE);
                template = ReplicatedPair.template(
                        run.resolve("template"),
                        dataSource -> PostgresLockManager.create(dataSource).close());
            }
            return template;
        } finally {
            making.unlock();
        }
    }

    /** A fresh folder for the next pair (deleted by the pair when it closes). */
    Path nextPair() {
        template();
        return run.resolve("pair-" + pairs.incrementAndGet());
    }

    @Override
    public void close() {
        making.lock();
        try {
            if (run != null) {
                DataDirectories.destroy(run);
            }
        } finally {
            making.unlock();
        }
    }
}
