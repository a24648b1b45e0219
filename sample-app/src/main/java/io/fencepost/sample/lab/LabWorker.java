package io.fencepost.sample.lab;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.jdbc.PostgresLockManager;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * One worker: a lock client of its own (its own {@link PostgresLockManager}, as if it were another process) that
 * repeatedly takes the key, reads the counter, works, and writes the counter plus one. It never checks its lease
 * before writing: a check is never enough, since the pause can come right after it. Only fencing makes the late
 * write harmless: at the resource (a fence column), or of the whole transaction, bound to the lease before it commits.
 */
final class LabWorker implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(LabWorker.class);

    private final LabExperiment experiment;

    private final String name;

    private final PostgresLockManager locks;

    private final StoreLink link;

    private volatile String state = "idle";

    private volatile Long token;

    private volatile String detail = "";

    /** Set by {@link #halt()}; a worker also stops when interrupted, but JDBC drivers may swallow interrupts. */
    private volatile boolean halted;

    /** Whether the last acquire failed on the store: its log entry is written once per outage. */
    private boolean storeFailing;

    LabWorker(LabExperiment experiment, String name, PostgresLockManager locks, StoreLink link) {
        this.experiment = experiment;
        this.name = name;
        this.locks = locks;
        this.link = link;
    }

    String name() {
        return name;
    }

    /** Makes the next {@link #run()} loop until {@link #halt()}. */
    void resume() {
        halted = false;
    }

    /** Ends the loop after the current step (the caller interrupts the thread too). */
    void halt() {
        halted = true;
    }

    LabState.Worker view() {
        return new LabState.Worker(name, state, token, detail);
    }

    @Override
    public void run() {
        try {
            while (!halted && !Thread.currentThread().isInterrupted()) {
                if (cycle()) {
                    set("idle", null, "");
                }
                sleep(Duration.ofMillis(ThreadLocalRandom.current().nextLong(60, 200)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (LockNotAcquiredException e) {
            if (!Thread.currentThread().isInterrupted()) { // else: stopped while waiting, as asked
                LOG.error("lab worker {} stopped", name, e);
                experiment.log().event(name, "error", name + " stopped: " + e);
            }
        } catch (RuntimeException e) {
            LOG.error("lab worker {} stopped", name, e);
            experiment.log().event(name, "error", name + " stopped: " + e);
        } finally {
            link.freezeUntil(0);
            set("stopped", null, "");
        }
    }

    /** One attempt, and the work if it got the key; false when the store failed (the state then says so). */
    private boolean cycle() throws InterruptedException {
        set("waiting", null, "wants " + experiment.key());
        // Read before the attempt: a grant that the store made before an outage began may reach this thread after.
        boolean storeDownBefore = link.storeDown();
        Optional<Lease> acquired;
        try {
            acquired = locks.tryAcquire(experiment.key(), experiment.lockOptions());
        } catch (LockStoreException e) {
            if (!storeFailing) {
                storeFailing = true;
                experiment
                        .log()
                        .event(
                                name,
                                "store-error",
                                name + " cannot acquire: the lock store is unreachable, so acquire"
                                        + " fails closed (LockStoreException); retrying");
            }
            experiment.counters().storeErrors.incrementAndGet();
            set("store-error", null, "acquire failed closed");
            sleep(Duration.ofMillis(400));
            return false;
        }
        storeFailing = false;
        if (acquired.isEmpty()) {
            return true;
        }
        if (storeDownBefore) {
            experiment.counters().grantsWhileStoreDown.incrementAndGet();
        }
        try (Lease lease = acquired.get()) {
            hold(lease);
        } catch (DataAccessException e) {
            set("error", null, "resource unreachable");
            experiment.log().event(name, "error", name + " could not reach the resource: " + e.getMostSpecificCause());
            sleep(Duration.ofMillis(400));
        }
        return true;
    }

    private void hold(Lease lease) throws InterruptedException {
        long fencingToken = lease.fencingToken();
        experiment.granted(name, fencingToken);
        lease.onLost(e -> {
            experiment
                    .log()
                    .event(name, "lost", name + "'s lease (token " + fencingToken + ") is lost: " + e.getMessage());
            experiment.counters().leasesLost.incrementAndGet();
        });
        if (experiment.fencing() == LabFencing.TRANSACTION) {
            holdInTransaction(lease);
            return;
        }
        boolean fenced = experiment.fencing() == LabFencing.COLUMN;
        set("holding", fencingToken, "read");
        Optional<LabResource.Snapshot> read = experiment.resource().read(fenced, fencingToken);
        if (read.isEmpty()) {
            refusedByFence(fencingToken, "read");
            return;
        }
        set("holding", fencingToken, "read " + read.get().value() + ", working");
        work(fencingToken);
        long value = read.get().value() + 1;
        set("writing", fencingToken, "writes " + value);
        // A write and its event one at a time: two holders at once write within microseconds, and their events must
        // reach the log in the order the resource took the writes, or the newest pinned event tells an older count.
        synchronized (experiment.resource()) {
            Optional<LabResource.Written> written = experiment.resource().write(fenced, fencingToken, name, value);
            if (written.isEmpty()) {
                refusedByFence(fencingToken, "write of " + value);
            } else {
                accepted(fencingToken, value, read.get().version(), written.get());
            }
        }
    }

    /**
     * The same work in one transaction on the lock table's database, bound to the lease right before it commits: a
     * holder whose lease ran out meanwhile has its read and write rolled back, whatever the resource would accept.
     */
    private void holdInTransaction(Lease lease) throws InterruptedException {
        long fencingToken = lease.fencingToken();
        try (Connection transaction = experiment.transactions().getConnection()) {
            transaction.setAutoCommit(false);
            LabResource resource = experiment.resource().in(transaction);
            try {
                set("holding", fencingToken, "read (in its transaction)");
                LabResource.Snapshot read = resource.read(false, fencingToken).orElseThrow();
                set("holding", fencingToken, "read " + read.value() + ", working");
                work(fencingToken);
                long value = read.value() + 1;
                set("writing", fencingToken, "writes " + value + ", then commits if its lease is held");
                synchronized (experiment.resource()) {
                    LabResource.Written written =
                            resource.write(false, fencingToken, name, value).orElseThrow();
                    experiment.guard().holdUntilCommit(transaction, lease);
                    transaction.commit();
                    accepted(fencingToken, value, read.version(), written);
                }
            } catch (LeaseLostException | SQLException e) {
                rollBack(transaction);
                rejected(
                        fencingToken,
                        "ROLLED BACK: " + name + "'s transaction with token " + fencingToken + " did not commit: "
                                + e.getMessage());
            }
        } catch (SQLException e) {
            throw new DataAccessResourceFailureException("the lab's transaction failed: " + e.getMessage(), e);
        }
    }

    private static void rollBack(Connection transaction) {
        try {
            transaction.rollback();
        } catch (SQLException e) {
            // the server may have ended the session: nothing was committed either way
        }
    }

    /**
     * The resource took the write of {@code value}; the read it was computed from was at version {@code read}. What
     * it did to the counter is told from the row the write left ({@code written}), the same row the page's "lost
     * updates" comes from, so that the two always agree.
     */
    private void accepted(long fencingToken, long value, long read, LabResource.Written written) {
        experiment.counters().writesAccepted.incrementAndGet();
        long overwritten = written.replaced() - read;
        long highest = experiment.highestGranted();
        String counter = "counter " + written.value() + " after " + written.version() + " accepted write(s): "
                + written.lostUpdates() + " lost update(s) now";
        if (overwritten > 0 && fencingToken < highest) {
            // Accepted from a holder whose lease was superseded, over a newer holder's work: two holders at once.
            experiment.log().outcome(fencingToken, name, "violation");
            experiment
                    .log()
                    .event(
                            name,
                            "violation",
                            "VIOLATION: the resource accepted " + name + "'s write of " + value
                                    + " with stale token " + fencingToken + " (token " + highest
                                    + " was granted since), computed before " + overwritten
                                    + " newer update(s) that it overwrote; " + counter);
            experiment.counters().violations.incrementAndGet();
        } else if (overwritten > 0) {
            // Read before a stale holder's late write landed: this write overwrites that one in turn.
            experiment.log().outcome(fencingToken, name, "accepted");
            experiment
                    .log()
                    .event(
                            name,
                            "overwrite",
                            name + " wrote " + value + " with token " + fencingToken
                                    + " over a stale holder's late write, which it read before and so overwrites; "
                                    + counter);
        } else {
            experiment.log().outcome(fencingToken, name, "accepted");
            experiment.log().event(name, "write", name + " wrote " + value + " with token " + fencingToken);
        }
    }

    /** The resource refused this worker's {@code what} (its fence has seen a newer token). */
    private void refusedByFence(long fencingToken, String what) {
        rejected(
                fencingToken,
                "REJECTED: " + name + "'s " + what + " with token " + fencingToken
                        + ": the resource has already seen token "
                        + experiment.resource().state().fence()
                        + " (fencing)");
    }

    /** A write that did not happen: counted, and logged as this worker's outcome with {@code message}. */
    private void rejected(long fencingToken, String message) {
        experiment.log().outcome(fencingToken, name, "rejected");
        experiment.log().event(name, "rejected", message);
        experiment.counters().writesRejected.incrementAndGet();
    }

    /** Works for the work time; if a pause is asked for meanwhile, this worker is the holder and freezes. */
    private void work(long fencingToken) throws InterruptedException {
        long end = System.nanoTime() + experiment.settings().workTime().toNanos();
        while (System.nanoTime() < end) {
            if (experiment.takePause()) {
                freeze(fencingToken);
                return;
            }
            TimeUnit.MILLISECONDS.sleep(
                    Math.max(1, Math.min(20, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()))));
        }
    }

    private void freeze(long fencingToken) throws InterruptedException {
        Duration pause = experiment.settings().pauseTime();
        link.freezeUntil(System.nanoTime() + pause.toNanos());
        set("frozen", fencingToken, "paused for " + pause.toMillis() + " ms");
        experiment
                .log()
                .event(
                        name,
                        "pause",
                        name + " is frozen for " + pause.toMillis() + " ms (a simulated GC pause) while holding token "
                                + fencingToken + "; its renewal is frozen too, and the lease is "
                                + experiment.settings().leaseTime().toMillis() + " ms");
        sleep(pause);
        experiment
                .log()
                .event(
                        name,
                        "wake",
                        name + " wakes up, still believes it holds token " + fencingToken
                                + ", and writes what it computed before the pause");
    }

    private void set(String state, Long token, String detail) {
        this.state = state;
        this.token = token;
        this.detail = detail;
    }

    private static void sleep(Duration duration) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(duration.toNanos());
    }

    /** The options every worker uses: the lab's lease, renewed, and a wait long enough to outlast a holder. */
    static LockOptions options(Duration leaseTime) {
        return LockOptions.builder()
                .leaseTime(leaseTime)
                .waitTime(leaseTime.multipliedBy(2))
                .name("lab")
                .build();
    }
}
