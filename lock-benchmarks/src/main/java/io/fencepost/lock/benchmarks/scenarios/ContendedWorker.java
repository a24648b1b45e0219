package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.clients.LockClient;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * This JVM's half of the contended hand-off: {@code threads} threads loop on one key (acquire, critical section,
 * release, again at once) from a common start instant to a common end. Every critical section is recorded with
 * {@link System#nanoTime()}, which on Linux reads {@code CLOCK_MONOTONIC} and so is comparable between the two
 * processes on one machine (checked when the second JVM starts).
 */
public final class ContendedWorker {

    /**
     * How long past the end of the window a started wait may go on. Waiters queued at the end still get the key
     * one after the other; a wait still unfinished this long after the end gives up and counts as a timeout (its
     * duration still enters the wait percentiles, as a lower bound).
     */
    public static final Duration GRACE = Duration.ofSeconds(3);

    /** One critical section: who, when they started waiting, got the key, and began releasing it. */
    public record Event(int jvm, int thread, long waitStart, long acquired, long releaseStart) {}

    /** What one JVM recorded: critical sections, and the durations of waits that timed out. */
    public record Outcome(List<Event> events, List<Long> timedOutWaits, long errors) {

        public void write(OutputStream out) throws IOException {
            DataOutputStream data = new DataOutputStream(out);
            data.writeInt(timedOutWaits.size());
            for (long wait : timedOutWaits) {
                data.writeLong(wait);
            }
            data.writeLong(errors);
            data.writeInt(events.size());
            for (Event e : events) {
                data.writeInt(e.jvm());
                data.writeInt(e.thread());
                data.writeLong(e.waitStart());
                data.writeLong(e.acquired());
                data.writeLong(e.releaseStart());
            }
            data.flush();
        }

        public static Outcome read(InputStream in) throws IOException {
            DataInputStream data = new DataInputStream(in);
            int timeouts = data.readInt();
            List<Long> timedOutWaits = new ArrayList<>(timeouts);
            for (int i = 0; i < timeouts; i++) {
                timedOutWaits.add(data.readLong());
            }
            long errors = data.readLong();
            int n = data.readInt();
            List<Event> events = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                events.add(
                        new Event(data.readInt(), data.readInt(), data.readLong(), data.readLong(), data.readLong()));
            }
            return new Outcome(events, timedOutWaits, errors);
        }
    }

    private ContendedWorker() {}

    public static Outcome run(
            LockClient client, String key, int threads, int jvm, long startAt, long windowNanos, long csNanos)
            throws InterruptedException {
        return run(java.util.Collections.nCopies(threads, client), key, jvm, startAt, windowNanos, csNanos);
    }

    /** One thread per client in {@code clients} (the nodes scenario: each its own application instance). */
    public static Outcome run(
            List<LockClient> clients, String key, int jvm, long startAt, long windowNanos, long csNanos)
            throws InterruptedException {
        int threads = clients.size();
        long endAt = startAt + windowNanos;
        List<List<Event>> perThread = new ArrayList<>();
        List<Long> timeouts = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicLong errors = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<Event> events = new ArrayList<>(16 * 1024);
            perThread.add(events);
            int threadId = t;
            LockClient client = clients.get(t);
            Thread worker = new Thread(
                    () -> loop(client, key, jvm, threadId, startAt, endAt, csNanos, events, timeouts, errors),
                    "contender-" + jvm + "-" + t);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        List<Event> all = new ArrayList<>();
        perThread.forEach(all::addAll);
        return new Outcome(all, List.copyOf(timeouts), errors.get());
    }

    private static void loop(
            LockClient client,
            String key,
            int jvm,
            int thread,
            long startAt,
            long endAt,
            long csNanos,
            List<Event> events,
            List<Long> timeouts,
            AtomicLong errors) {
        waitUntil(startAt);
        while (true) {
            long waitStart = System.nanoTime();
            if (waitStart - endAt >= 0) {
                return;
            }
            try {
                Duration wait = Duration.ofNanos(Math.max(1_000_000, endAt + GRACE.toNanos() - waitStart));
                LockClient.Held held = client.acquire(key, wait);
                long acquired = System.nanoTime();
                if (held == null) {
                    timeouts.add(acquired - waitStart);
                    continue;
                }
                if (csNanos > 0) {
                    long busyUntil = acquired + csNanos;
                    while (System.nanoTime() - busyUntil < 0) {
                        Thread.onSpinWait();
                    }
                }
                long releaseStart = System.nanoTime();
                held.release();
                events.add(new Event(jvm, thread, waitStart, acquired, releaseStart));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                if (errors.incrementAndGet() <= 3) {
                    System.err.println("contender " + jvm + "/" + thread + " on '" + key + "': " + e);
                }
                LockSupport.parkNanos(1_000_000);
            }
        }
    }

    private static void waitUntil(long instant) {
        long left;
        while ((left = instant - System.nanoTime()) > 2_000_000) {
            LockSupport.parkNanos(left - 1_000_000);
        }
        while (System.nanoTime() - instant < 0) {
            Thread.onSpinWait();
        }
    }
}
