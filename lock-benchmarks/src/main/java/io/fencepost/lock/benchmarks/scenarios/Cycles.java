package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Samples;
import io.fencepost.lock.benchmarks.clients.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * Acquire + release cycles by some threads of one client, back to back for a window, on one key or on a key that
 * changes every cycle: the cycle's latency (its acquire includes any wait) and the cycles per second of all threads
 * together.
 */
final class Cycles {

    private Cycles() {}

    static CycleResult run(LockClient client, String key, int threads, Duration window) throws Exception {
        return run(t -> client, t -> key, threads, window);
    }

    /** As above, with the key of each cycle from {@code keys} (called by the cycling threads, before the clock runs). */
    static CycleResult run(LockClient client, Supplier<String> keys, int threads, Duration window) throws Exception {
        return cycle(t -> client, t -> keys, threads, window);
    }

    /** Thread {@code t} cycles on {@code keyOf(t)} with {@code clientOf(t)}. */
    static CycleResult run(IntFunction<LockClient> clientOf, IntFunction<String> keyOf, int threads, Duration window)
            throws Exception {
        return cycle(
                clientOf,
                t -> {
                    String key = keyOf.apply(t);
                    return () -> key;
                },
                threads,
                window);
    }

    private static CycleResult cycle(
            IntFunction<LockClient> clientOf, IntFunction<Supplier<String>> keysOf, int threads, Duration window)
            throws Exception {
        Samples[] total = new Samples[threads];
        Samples[] acquire = new Samples[threads];
        Samples[] release = new Samples[threads];
        long[] cycles = new long[threads];
        long[] failures = new long[threads];
        AtomicReference<Exception> failure = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        long[] window0 = new long[2];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int i = t;
            LockClient client = clientOf.apply(i);
            Supplier<String> keys = keysOf.apply(i);
            total[i] = new Samples(16 * 1024);
            acquire[i] = new Samples(16 * 1024);
            release[i] = new Samples(16 * 1024);
            Thread worker = new Thread(
                    () -> {
                        ready.countDown();
                        try {
                            go.await();
                            long end = window0[1];
                            long now = System.nanoTime();
                            while (now < end) {
                                String key = keys.get();
                                long t0 = System.nanoTime();
                                LockClient.Held held = client.acquire(key, UncontendedScenario.WAIT);
                                long t1 = System.nanoTime();
                                if (held == null) {
                                    failures[i]++;
                                    now = t1;
                                    continue;
                                }
                                held.release();
                                now = System.nanoTime();
                                total[i].add(now - t0);
                                acquire[i].add(t1 - t0);
                                release[i].add(now - t1);
                                cycles[i]++;
                            }
                        } catch (Exception e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    "cycles-" + i);
            workers.add(worker);
            worker.start();
        }
        ready.await();
        window0[0] = System.nanoTime();
        window0[1] = window0[0] + window.toNanos();
        go.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        long elapsed = System.nanoTime() - window0[0];
        if (failure.get() != null) {
            throw failure.get();
        }
        Samples allTotal = new Samples(64 * 1024);
        Samples allAcquire = new Samples(64 * 1024);
        Samples allRelease = new Samples(64 * 1024);
        long allCycles = 0;
        long allFailures = 0;
        for (int i = 0; i < threads; i++) {
            allTotal.addAll(total[i]);
            allAcquire.addAll(acquire[i]);
            allRelease.addAll(release[i]);
            allCycles += cycles[i];
            allFailures += failures[i];
        }
        return CycleResult.of(allCycles, elapsed, allTotal, allAcquire, allRelease, allFailures);
    }
}
