package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.Library;

/**
 * Shared leases and permits, next to Redisson's read lock and semaphores: one thread cycling on a free key (with
 * Fencepost's and Redisson's exclusive locks as the reference), then {@link #THREADS} threads of one client cycling
 * on one key (readers all at once; permits {@value Library#PERMITS} at a time, so half of the threads wait).
 */
public final class ModeScenario {

    /** Threads on one key in the many-holders measurements. */
    public static final int THREADS = 8;

    private final Harness harness;

    public ModeScenario(Harness harness) {
        this.harness = harness;
    }

    /** One thread, shared leases, same key every cycle. */
    public Series<CycleResult> sharedAlone() throws Exception {
        return alone(
                "shared/1-thread",
                Library.FENCEPOST,
                Library.FENCEPOST_SHARED,
                Library.REDISSON,
                Library.REDISSON_READ);
    }

    /** {@link #THREADS} readers of one key. */
    public Series<CycleResult> sharedReaders() throws Exception {
        return many("shared/" + THREADS + "-readers", Library.FENCEPOST_SHARED, Library.REDISSON_READ);
    }

    /** One thread, permits, same key every cycle. */
    public Series<CycleResult> permitsAlone() throws Exception {
        return alone(
                "permits/1-thread",
                Library.FENCEPOST,
                Library.FENCEPOST_PERMITS,
                Library.REDISSON_PERMITS,
                Library.REDISSON_SEMAPHORE);
    }

    /** {@link #THREADS} threads on {@value Library#PERMITS} permits of one key. */
    public Series<CycleResult> permitsThreads() throws Exception {
        return many(
                "permits/" + THREADS + "-threads",
                Library.FENCEPOST_PERMITS,
                Library.REDISSON_PERMITS,
                Library.REDISSON_SEMAPHORE);
    }

    private Series<CycleResult> alone(String name, Library... libraries) throws Exception {
        return Rounds.shortCycles(
                harness,
                name,
                (library, round) -> Cycles.run(
                        harness.client(library),
                        "bench:" + library.id() + ":mode-alone",
                        1,
                        harness.settings().cycleWindow()),
                libraries);
    }

    private Series<CycleResult> many(String name, Library... libraries) throws Exception {
        return Rounds.run(
                harness,
                name,
                harness.libraries(libraries),
                (library, round) -> Cycles.run(
                        harness.client(library),
                        "bench:" + library.id() + ":mode-many",
                        THREADS,
                        harness.settings().contendedWindow()),
                CycleResult::show);
    }
}
