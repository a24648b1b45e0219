package io.fencepost.lock.reliability.contention;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.MultiLease;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaMode;
import io.fencepost.lock.reliability.support.Pools;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One JVM of {@link SetsAcrossJvmsTest}: threads that take random sets of 2 or 3 of the keys together, with a random
 * wait time, hold them a moment and release them, until the run ends. It prints a line for every call that outlasted
 * its wait time, and one {@code DONE} line with its counts.
 *
 * <p>Arguments: the database URL, the process name, threads, seconds, keys.
 */
public final class SetWorker {

    /** How long a call may outlast its wait time: one statement's round trip and scheduling on a loaded machine. */
    static final Duration SLACK = Duration.ofMillis(1500);

    private SetWorker() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String process = args[1];
        int threads = Integer.parseInt(args[2]);
        long endAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[3]));
        int keyCount = Integer.parseInt(args[4]);
        List<String> keys = new ArrayList<>();
        for (int k = 0; k < keyCount; k++) {
            keys.add("set:" + k);
        }
        AtomicLong sections = new AtomicLong();
        AtomicLong busy = new AtomicLong();
        AtomicLong problems = new AtomicLong();
        try (HikariDataSource pool = Pools.hikari(url, "sets-" + process, 2 * threads + 4, 5_000)) {
            // two managers (two clients) per JVM, each with half the threads
            List<PostgresLockManager> managers = List.of(manager(pool, process + "-a"), manager(pool, process + "-b"));
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                PostgresLockManager manager = managers.get(t % 2);
                Random random = new Random(process.hashCode() * 31L + t);
                String name = process + "/t" + t;
                Thread thread = new Thread(() -> lock(manager, keys, random, endAt, sections, busy, problems), name);
                workers.add(thread);
                thread.start();
            }
            for (Thread thread : workers) {
                thread.join();
            }
            managers.forEach(PostgresLockManager::close);
        }
        System.out.println("DONE sections=" + sections + " busy=" + busy + " problems=" + problems);
        System.out.flush();
    }

    private static PostgresLockManager manager(HikariDataSource pool, String holder) {
        return PostgresLockManager.builder(pool)
                .schemaMode(SchemaMode.NONE)
                .holderName(holder)
                .build();
    }

    private static void lock(
            PostgresLockManager manager,
            List<String> keys,
            Random random,
            long endAt,
            AtomicLong sections,
            AtomicLong busy,
            AtomicLong problems) {
        List<String> shuffled = new ArrayList<>(keys);
        while (System.nanoTime() - endAt < 0) {
            Collections.shuffle(shuffled, random);
            List<String> set = List.copyOf(shuffled.subList(0, 2 + random.nextInt(2)));
            Duration wait = Duration.ofMillis(random.nextInt(2_000));
            LockOptions options = LockOptions.builder()
                    .leaseTime(Duration.ofSeconds(5))
                    .waitTime(wait)
                    .name("sets")
                    .build();
            long start = System.nanoTime();
            Optional<MultiLease> acquired;
            try {
                acquired = manager.tryAcquireAll(set, options);
            } catch (LockStoreException e) {
                problems.incrementAndGet();
                System.out.println("PROBLEM " + Thread.currentThread().getName() + ": " + e.getMessage());
                continue;
            } catch (RuntimeException e) {
                problems.incrementAndGet();
                System.out.println("PROBLEM " + Thread.currentThread().getName() + " stopped: " + e);
                return;
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            if (took.compareTo(wait.plus(SLACK)) > 0) {
                problems.incrementAndGet();
                System.out.println("PROBLEM " + Thread.currentThread().getName() + ": a call for " + set + " took "
                        + took.toMillis() + " ms with a wait time of " + wait.toMillis() + " ms");
            }
            if (acquired.isEmpty()) {
                busy.incrementAndGet();
                continue;
            }
            MultiLease held = acquired.get();
            try {
                if (random.nextBoolean()) {
                    Thread.sleep(random.nextInt(5));
                }
                if (!held.isHeld()) {
                    problems.incrementAndGet();
                    System.out.println("PROBLEM " + Thread.currentThread().getName() + ": lost " + set);
                }
                sections.incrementAndGet();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                held.close();
                return;
            }
            try {
                // Every lease of the set must still be ours: a release that finds one gone means another grant
                // took the key from under us, which the store's history alone would show as a hand-over.
                if (!held.release()) {
                    problems.incrementAndGet();
                    System.out.println("PROBLEM " + Thread.currentThread().getName() + ": the release of " + set
                            + " found a lease of the set taken over");
                }
            } catch (LockStoreException e) {
                problems.incrementAndGet();
                System.out.println("PROBLEM " + Thread.currentThread().getName() + ": " + e.getMessage());
            }
        }
    }
}
