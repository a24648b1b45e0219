package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Samples;
import io.fencepost.lock.benchmarks.clients.LockClient;
import io.fencepost.lock.benchmarks.clients.SetClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Two clients, one thread each, taking their sets (which overlap) back to back for a window with nothing in between:
 * every set one of them takes is one the other may be waiting for. A wait started in the window may run on until
 * {@link SetsScenario#GRACE} past its end, so that a call stuck behind the other client (a deadlock of locks taken one by one in
 * opposite orders) ends as a timeout without stretching the window by a full wait.
 */
final class SetContention {

    private SetContention() {}

    /**
     * @return both clients' sets together: sets per second over the time until both stopped; latencies are the
     *     acquire's wait, those that timed out included (as a lower bound); release p50 is the release's; anomalies the calls that did not get their set in time
     */
    static CycleResult run(SetClient a, List<String> keysA, SetClient b, List<String> keysB, Duration window)
            throws Exception {
        Side[] sides = {new Side(a, keysA), new Side(b, keysB)};
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Exception> failure = new AtomicReference<>();
        long[] end = new long[1];
        Thread[] threads = new Thread[sides.length];
        for (int i = 0; i < sides.length; i++) {
            Side side = sides[i];
            threads[i] = new Thread(
                    () -> {
                        try {
                            go.await();
                            side.loop(end[0]);
                        } catch (Exception e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    "sets-contender-" + i);
            threads[i].start();
        }
        long start = System.nanoTime();
        end[0] = start + window.toNanos();
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        long elapsed = System.nanoTime() - start;
        if (failure.get() != null) {
            throw failure.get();
        }
        Samples waits = new Samples(16 * 1024);
        Samples releases = new Samples(16 * 1024);
        long sets = 0;
        long anomalies = 0;
        for (Side side : sides) {
            waits.addAll(side.waits);
            releases.addAll(side.releases);
            sets += side.sets;
            anomalies += side.anomalies;
        }
        return CycleResult.of(sets, elapsed, waits, waits, releases, anomalies);
    }

    /** One client's thread and what it recorded. */
    private static final class Side {

        private final SetClient client;

        private final List<String> keys;

        private final Samples waits = new Samples(16 * 1024);

        private final Samples releases = new Samples(16 * 1024);

        private long sets;

        private long anomalies;

        Side(SetClient client, List<String> keys) {
            this.client = client;
            this.keys = keys;
        }

        void loop(long end) throws Exception {
            long graceEnd = end + SetsScenario.GRACE.toNanos();
            long now = System.nanoTime();
            while (now - end < 0) {
                long t0 = now;
                LockClient.Held held = client.acquire(keys, Duration.ofNanos(Math.max(1_000_000, graceEnd - t0)));
                long t1 = System.nanoTime();
                waits.add(t1 - t0);
                if (held == null) {
                    anomalies++;
                    now = t1;
                    continue;
                }
                held.release();
                now = System.nanoTime();
                releases.add(now - t1);
                sets++;
            }
        }
    }
}
