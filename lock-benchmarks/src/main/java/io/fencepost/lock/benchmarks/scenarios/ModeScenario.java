package io.fencepost.lock.benchmarks.scenarios;

import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST_PERMITS;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST_SHARED;
import static io.fencepost.lock.benchmarks.clients.Library.REDISSON;
import static io.fencepost.lock.benchmarks.clients.Library.REDISSON_PERMITS;
import static io.fencepost.lock.benchmarks.clients.Library.REDISSON_READ;
import static io.fencepost.lock.benchmarks.clients.Library.REDISSON_SEMAPHORE;

import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.Library;
import java.time.Duration;

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
        return alone("shared/1-thread", FENCEPOST, FENCEPOST_SHARED, REDISSON, REDISSON_READ);
    }

    /** {@link #THREADS} readers of one key. */
    public Series<CycleResult> sharedReaders() throws Exception {
        return many("shared/" + THREADS + "-readers", FENCEPOST_SHARED, REDISSON_READ);
    }

    /** One thread, permits, same key every cycle. */
    public Series<CycleResult> permitsAlone() throws Exception {
        return alone("permits/1-thread", FENCEPOST, FENCEPOST_PERMITS, REDISSON_PERMITS, REDISSON_SEMAPHORE);
    }

    /** {@link #THREADS} threads on {@value Library#PERMITS} permits of one key. */
    public Series<CycleResult> permitsThreads() throws Exception {
        return many("permits/" + THREADS + "-threads", FENCEPOST_PERMITS, REDISSON_PERMITS, REDISSON_SEMAPHORE);
    }

    private Series<CycleResult> alone(String name, Library... libraries) throws Exception {
        Settings settings = harness.settings();
        return cycles(name, settings.shortRounds(), "mode-alone", 1, settings.cycleWindow(), libraries);
    }

    private Series<CycleResult> many(String name, Library... libraries) throws Exception {
        Settings settings = harness.settings();
        return cycles(name, settings.rounds(), "mode-many", THREADS, settings.contendedWindow(), libraries);
    }

    /** Rounds of {@code threads} threads of one client cycling on one key of each library, for {@code window}. */
    private Series<CycleResult> cycles(
            String name, int rounds, String key, int threads, Duration window, Library... libraries) throws Exception {
        return Rounds.run(
                harness,
                name,
                rounds,
                harness.libraries(libraries),
                (library, round) ->
                        Cycles.run(harness.client(library), "bench:" + library.id() + ":" + key, threads, window),
                CycleResult::show);
    }
}
