package io.fencepost.lock.reliability.contention;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaMode;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.reliability.support.Pools;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Four instances (a {@link PostgresLockManager} and a pool each), two threads each, all locking one key with a wait
 * time and releasing at once: local hand-overs inside each instance meet acquires from the others at full rate.
 * Each critical section records its fencing token as it enters; sections never overlap, so that is the grant order,
 * and every token must be higher than the one before it.
 *
 * <p>Six rounds of 10 seconds by default, each with fresh managers and a fresh key (on the code before the token-order
 * fix three rounds of 20 s showed 11 regressions);
 * {@code -Dfencepost.contention.rounds} and {@code -Dfencepost.contention.seconds} change that.
 */
@Tag("full")
class ManyInstancesOneKeyTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private static final int INSTANCES = 4;

    private static final int THREADS_PER_INSTANCE = 2;

    private static final int ROUNDS = Integer.getInteger("fencepost.contention.rounds", 6);

    private static final Duration ROUND = Duration.ofSeconds(Long.getLong("fencepost.contention.seconds", 10));

    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(10))
            .waitTime(Duration.ofSeconds(5))
            .name("contention")
            .build();

    @Test
    void tokensOfOneKeyIncreaseInTheOrderItsSectionsAreEntered() throws Exception {
        PostgresLockManager.create(db.dataSource()).close();
        long sections = 0;
        List<String> problems = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            Round result = run("contention:round-" + round);
            sections += result.sections.get();
            problems.addAll(result.problems);
        }

        System.out.printf(
                "%d critical sections on one key over %d rounds of %d s%n", sections, ROUNDS, ROUND.toSeconds());
        assertThat(problems)
                .as("token regressions and overlaps in %d critical sections over %d rounds", sections, ROUNDS)
                .isEmpty();
        assertThat(sections)
                .as("critical sections entered (at least 50 per second of locking)")
                .isGreaterThanOrEqualTo(50L * ROUNDS * ROUND.toSeconds());
    }

    private Round run(String key) throws InterruptedException {
        Round round = new Round();
        List<HikariDataSource> pools = new ArrayList<>();
        List<PostgresLockManager> managers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        long endAt = System.nanoTime() + ROUND.toNanos();
        CountDownLatch start = new CountDownLatch(1);
        try {
            for (int i = 0; i < INSTANCES; i++) {
                HikariDataSource pool = Pools.hikari(db.jdbcUrl(), "instance-" + i, THREADS_PER_INSTANCE + 2, 5_000);
                pools.add(pool);
                PostgresLockManager manager = PostgresLockManager.builder(pool)
                        .schemaMode(SchemaMode.NONE)
                        .holderName("instance-" + i)
                        .build();
                managers.add(manager);
                for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
                    Thread thread = new Thread(() -> lockUntil(manager, key, endAt, start, round), "i" + i + "/t" + t);
                    threads.add(thread);
                    thread.start();
                }
            }
            start.countDown();
            for (Thread thread : threads) {
                thread.join(ROUND.toMillis() + 60_000);
                if (thread.isAlive()) {
                    round.problem(thread.getName() + " did not finish (hung?)");
                }
            }
        } finally {
            managers.forEach(PostgresLockManager::close);
            pools.forEach(HikariDataSource::close);
        }
        return round;
    }

    private static void lockUntil(
            PostgresLockManager manager, String key, long endAt, CountDownLatch start, Round round) {
        try {
            start.await();
            while (System.nanoTime() - endAt < 0) {
                Optional<Lease> acquired;
                try {
                    acquired = manager.tryAcquire(key, OPTIONS);
                } catch (LockStoreException e) {
                    round.problem(Thread.currentThread().getName() + ": " + e.getMessage());
                    return;
                }
                if (acquired.isEmpty()) {
                    continue;
                }
                try (Lease lease = acquired.get()) {
                    round.enter(lease.fencingToken());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What one round saw. The lock under test is what keeps {@link #enter} single-threaded. */
    private static final class Round {

        final AtomicLong sections = new AtomicLong();

        /** The first problems seen; a broken lock could produce thousands. */
        final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();

        private final AtomicInteger problemCount = new AtomicInteger();

        private final AtomicInteger inside = new AtomicInteger();

        private final AtomicLong lastToken = new AtomicLong(Long.MIN_VALUE);

        void enter(long token) {
            if (inside.incrementAndGet() != 1) {
                problem(Thread.currentThread().getName() + " entered with token " + token
                        + " while another section was running");
            }
            long previous = lastToken.getAndSet(token);
            if (token <= previous) {
                problem(Thread.currentThread().getName() + " entered with token " + token + " after a section with "
                        + previous);
            }
            sections.incrementAndGet();
            inside.decrementAndGet();
        }

        void problem(String problem) {
            if (problemCount.incrementAndGet() <= 20) {
                problems.add(problem);
            }
        }
    }
}
