package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Take-overs racing transactions bound to their leases: in each round A writes in a transaction under a short
 * lease, binds it at a random moment around its expiry and commits a random while later, as B tries to take the key
 * over at another random moment. Whenever A's commit succeeds, B's grant must come after it and see A's write.
 */
@Tag("full")
class LeaseGuardRaceTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase(24);

    private static final int LANES = 8;

    private static final int ROUNDS_PER_LANE = 125;

    private static final Duration LEASE = Duration.ofMillis(100);

    /** How often each interleaving must be met for the run to say anything: more than this many rounds each. */
    private static final int ENOUGH = 50;

    /** The longest the lanes go on past their rounds to meet both interleavings often enough. */
    private static final Duration MAX_RUN = Duration.ofMinutes(3);

    private final JdbcLeaseGuard guard = new JdbcLeaseGuard();

    @Test
    void aTakeOverNeverCommitsBeforeABoundTransactionAndAlwaysSeesItsWrites() throws Exception {
        PostgresLockManager.create(db.dataSource()).close();
        db.execute("CREATE TABLE race_write (lane int NOT NULL, round int NOT NULL, PRIMARY KEY (lane, round))");
        AtomicInteger committed = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger raced = new AtomicInteger();
        AtomicInteger rounds = new AtomicInteger();
        List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService lanes = Executors.newFixedThreadPool(LANES);
        ExecutorService takers = Executors.newFixedThreadPool(LANES);
        long started = System.nanoTime();
        try (PostgresLockManager a = manager("A");
                PostgresLockManager b = manager("B")) {
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (int lane = 0; lane < LANES; lane++) {
                int laneNo = lane;
                all.add(CompletableFuture.runAsync(
                        () -> {
                            // At least ROUNDS_PER_LANE each, and on until both interleavings were met often enough:
                            // how often B's take-over meets A's commit depends on the machine's load, not the code.
                            for (int round = 0;
                                    round < ROUNDS_PER_LANE
                                            || ((raced.get() <= ENOUGH || refused.get() <= ENOUGH)
                                                    && System.nanoTime() - started < MAX_RUN.toNanos());
                                    round++) {
                                Outcome outcome = round(a, b, takers, laneNo, round);
                                rounds.incrementAndGet();
                                if (outcome.committed()) {
                                    committed.incrementAndGet();
                                } else {
                                    refused.incrementAndGet();
                                }
                                if (outcome.committed() && outcome.takeOverBeganBeforeCommitEnded()) {
                                    raced.incrementAndGet();
                                }
                                if (outcome.committed() != outcome.seenByB()) {
                                    violations.add("lane " + laneNo + " round " + round + ": " + outcome);
                                }
                            }
                        },
                        lanes));
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        } finally {
            lanes.shutdownNow();
            takers.shutdownNow();
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        System.out.printf(
                "bound transactions: %d rounds in %d s, %d committed, %d refused, %d committed while a take-over"
                        + " was under way, %d violations%n",
                rounds.get(), seconds, committed.get(), refused.get(), raced.get(), violations.size());
        assertThat(violations).isEmpty();
        assertThat(committed.get() + refused.get())
                .isEqualTo(rounds.get())
                .isGreaterThanOrEqualTo(LANES * ROUNDS_PER_LANE);
        assertThat(raced.get())
                .as("rounds in which B tried while A was committing")
                .isGreaterThan(ENOUGH);
        assertThat(refused.get()).as("rounds in which A's lease had run out").isGreaterThan(ENOUGH);
    }

    private record Outcome(boolean committed, boolean seenByB, boolean takeOverBeganBeforeCommitEnded) {}

    private Outcome round(PostgresLockManager a, PostgresLockManager b, ExecutorService takers, int lane, int round) {
        String key = "race:" + lane;
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long bindAfter = random.nextLong(130_000_000L);
        long commitAfter = random.nextLong(30_000_000L);
        long takeAfter = random.nextLong(130_000_000L);
        Connection tx = connect();
        Lease lease = a.acquire(
                key,
                LockOptions.builder()
                        .leaseTime(LEASE)
                        .renew(false)
                        .waitTime(Duration.ofSeconds(10))
                        .build());
        long granted = System.nanoTime();
        CompletableFuture<Long> takeOverBegan = new CompletableFuture<>();
        CompletableFuture<Boolean> seen = CompletableFuture.supplyAsync(
                () -> {
                    LockSupport.parkNanos(granted + takeAfter - System.nanoTime());
                    takeOverBegan.complete(System.nanoTime());
                    try (Lease taken = b.acquire(
                            key,
                            LockOptions.builder()
                                    .leaseTime(Duration.ofSeconds(5))
                                    .waitTime(Duration.ofSeconds(10))
                                    .build())) {
                        return written(lane, round);
                    }
                },
                takers);
        boolean committed = false;
        long commitEnded;
        try (tx) {
            tx.setAutoCommit(false);
            write(tx, lane, round);
            LockSupport.parkNanos(granted + bindAfter - System.nanoTime());
            try {
                guard.holdUntilCommit(tx, lease);
                LockSupport.parkNanos(commitAfter);
                tx.commit();
                committed = true;
            } catch (LeaseLostException | SQLException e) {
                rollbackQuietly(tx);
            }
            commitEnded = System.nanoTime();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        } finally {
            lease.close();
        }
        try {
            boolean seenByB = seen.get(30, TimeUnit.SECONDS);
            return new Outcome(committed, seenByB, takeOverBegan.get() < commitEnded);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static PostgresLockManager manager(String holder) {
        return PostgresLockManager.builder(db.dataSource())
                .holderName(holder)
                .schemaMode(SchemaMode.NONE)
                .build();
    }

    /** A's transactions get connections of their own: the server ends the session of one left idle too long. */
    private static Connection connect() {
        try {
            return db.unpooledDataSource().getConnection();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void write(Connection tx, int lane, int round) throws SQLException {
        try (PreparedStatement insert = tx.prepareStatement("INSERT INTO race_write VALUES (?, ?)")) {
            insert.setInt(1, lane);
            insert.setInt(2, round);
            insert.executeUpdate();
        }
    }

    private static boolean written(int lane, int round) {
        try (Connection connection = db.dataSource().getConnection();
                PreparedStatement select =
                        connection.prepareStatement("SELECT count(*) FROM race_write WHERE lane = ? AND round = ?")) {
            select.setInt(1, lane);
            select.setInt(2, round);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getLong(1) == 1;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void rollbackQuietly(Connection tx) {
        try {
            tx.rollback();
        } catch (SQLException e) {
            // the server ended the session already: nothing was committed
        }
    }
}
