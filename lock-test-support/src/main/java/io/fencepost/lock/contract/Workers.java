package io.fencepost.lock.contract;

import io.fencepost.lock.LockManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** Threads that take leases of one key in a loop, through several clients, until stopped; their failures fail it. */
final class Workers implements AutoCloseable {

    /** One turn of a worker. */
    interface Turn {
        void take(LockManager locks, Random random) throws Exception;
    }

    private final AtomicBoolean running = new AtomicBoolean(true);

    private final ExecutorService threads;

    private final List<Future<?>> futures = new ArrayList<>();

    private Workers(int size) {
        this.threads = Executors.newFixedThreadPool(size);
    }

    /** Starts {@code perClient} threads on each client, each taking turns until {@link #stop}. */
    static Workers start(List<LockManager> clients, int perClient, Turn turn) {
        Workers workers = new Workers(clients.size() * perClient);
        int seed = 0;
        for (LockManager client : clients) {
            for (int i = 0; i < perClient; i++) {
                Random random = new Random(++seed);
                workers.futures.add(workers.threads.submit(() -> {
                    while (workers.running.get()) {
                        turn.take(client, random);
                    }
                    return null;
                }));
            }
        }
        return workers;
    }

    /** Runs the workers for {@code duration} and stops them. */
    static void run(List<LockManager> clients, int perClient, Duration duration, Turn turn) throws Exception {
        try (Workers workers = start(clients, perClient, turn)) {
            workers.awaitFor(duration);
            workers.stop();
        }
    }

    /** Waits {@code duration} while the workers run, or until one of them fails. */
    private void awaitFor(Duration duration) throws Exception {
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < end) {
            for (Future<?> future : futures) {
                if (future.isDone()) {
                    future.get(); // a worker ended early: only by failing
                }
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    /** Stops the workers after their current turns; rethrows the first failure. */
    void stop() throws Exception {
        running.set(false);
        for (Future<?> future : futures) {
            future.get(60, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() {
        running.set(false);
        threads.shutdownNow();
    }

    /** A worker's hold: up to {@code maxMillis} ms of work. */
    static void pause(Random random, int maxMillis) {
        pause(Duration.ofMillis(random.nextInt(maxMillis + 1)));
    }

    static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while holding a lease", e);
        }
    }
}
