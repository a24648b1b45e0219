package io.fencepost.lock.reliability.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.reliability.checker.CheckerSchema;
import io.fencepost.lock.reliability.support.Options;
import io.fencepost.lock.reliability.support.Pools;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Failover to a synchronous standby: every grant a client was told about survives the crash of the primary, a lease
 * held across the failover stays held by its holder alone, and fencing tokens continue upward.
 */
@Tag("full")
class SynchronousFailoverTest {

    /** A grant some client was told about. */
    record Confirmed(String key, long token) {}

    @Test
    void noConfirmedGrantIsLostAndTokensContinueUpward() throws Exception {
        try (ReplicatedPair pair = ReplicatedPair.start(true);
                HikariDataSource pool = Pools.hikari(pair.clientUrl(), "failover-client", 8, 3_000)) {
            pair.installCheckerSchema(pool);
            try (PostgresLockManager locks = manager(pool, "client");
                    PostgresLockManager other = manager(pool, "other")) {

                // With the synchronous standby cut off, a grant cannot be confirmed: acquire fails closed.
                pair.replication.stall();
                assertThatThrownBy(() -> locks.acquire("failover:unreplicated", LockOptions.of(Duration.ofSeconds(2))))
                        .isInstanceOf(LockStoreException.class);
                assertThat(locks.heldLeases()).isEmpty();
                pair.replication.resume();
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> pair.replicationState().equals("streaming/sync"));

                Lease heldAcross = locks.acquire("failover:held", LockOptions.of(Duration.ofSeconds(20)));
                ConcurrentLinkedQueue<Confirmed> confirmed = new ConcurrentLinkedQueue<>();
                confirmed.add(new Confirmed("failover:held", heldAcross.fencingToken()));
                AtomicBoolean running = new AtomicBoolean(true);
                AtomicInteger storeErrors = new AtomicInteger();
                List<Thread> workers = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    String key = "failover:key-" + (t % 2);
                    PostgresLockManager manager = t % 2 == 0 ? locks : other;
                    Thread worker = new Thread(() -> {
                        while (running.get()) {
                            try {
                                Optional<Lease> lease = manager.tryAcquire(
                                        key, Options.leaseAndWait(Duration.ofSeconds(3), Duration.ofSeconds(1)));
                                if (lease.isPresent()) {
                                    confirmed.add(new Confirmed(key, lease.get().fencingToken()));
                                    lease.get().close();
                                }
                            } catch (LockStoreException e) {
                                storeErrors.incrementAndGet();
                                sleep(100);
                            }
                        }
                    });
                    worker.start();
                    workers.add(worker);
                }

                Thread.sleep(3_000);
                pair.failOver();
                // Every grant recorded at or after this moment was made by the promoted standby: the primary is dead.
                String promotedAt =
                        ReplicatedPair.queryString(pair.standby.jdbcUrl("postgres"), "SELECT clock_timestamp()::text");
                List<Confirmed> beforeFailover = new ArrayList<>(confirmed);
                long highestBefore = beforeFailover.stream()
                        .mapToLong(Confirmed::token)
                        .max()
                        .orElseThrow();
                int countBefore = beforeFailover.size();
                await().atMost(Duration.ofSeconds(30)).until(() -> confirmed.size() > countBefore + 20);
                Thread.sleep(1_000);
                running.set(false);
                for (Thread worker : workers) {
                    worker.join(30_000);
                }

                String newPrimary = pair.standby.jdbcUrl("postgres");
                Map<Long, String> granted = grantsOn(newPrimary);
                List<Confirmed> all = new ArrayList<>(confirmed);
                List<Confirmed> lost = all.stream()
                        .filter(c -> !c.key().equals(granted.get(c.token())))
                        .toList();
                assertThat(lost)
                        .as("confirmed grants missing on the promoted standby")
                        .isEmpty();
                // A grant confirmed after the failover may be one the old primary made (for instance, a release handed
                // the lease to a registered waiter, the message telling it did not arrive before the crash, and the
                // waiter found the lease its own on the new primary): what must continue upward is the token of every
                // grant the promoted standby makes.
                TokensAround tokens = tokensAround(newPrimary, promotedAt);
                assertThat(tokens.grantsAfter())
                        .as("grants the promoted standby made")
                        .isPositive();
                assertThat(tokens.lowestAfter())
                        .as("lowest token the promoted standby granted, against the highest granted before")
                        .isGreaterThan(tokens.highestBefore())
                        .isGreaterThan(highestBefore);
                assertTokensIncreasePerKeyInGrantOrder(newPrimary);

                assertThat(heldAcross.isHeld())
                        .as("the lease held across the failover")
                        .isTrue();
                Optional<LeaseInfo> info = other.inspect("failover:held");
                assertThat(info)
                        .hasValueSatisfying(i -> assertThat(i.fencingToken()).isEqualTo(heldAcross.fencingToken()));
                assertThat(other.tryAcquire("failover:held", LockOptions.of(Duration.ofSeconds(1))))
                        .as("nobody else gets the key held across the failover")
                        .isEmpty();
                assertThat(heldAcross.release()).isTrue();
                System.out.printf(
                        "synchronous failover: %d grants confirmed (%d before the crash), %d store errors during it,"
                                + " highest token granted before %d, lowest after %d (%d grants after); %d grants"
                                + " confirmed after the failover carry a token below the highest confirmed before it%n",
                        all.size(),
                        countBefore,
                        storeErrors.get(),
                        tokens.highestBefore(),
                        tokens.lowestAfter(),
                        tokens.grantsAfter(),
                        all.subList(countBefore, all.size()).stream()
                                .filter(c -> c.token() < highestBefore)
                                .count());
            }
        }
    }

    static PostgresLockManager manager(HikariDataSource pool, String holder) {
        return PostgresLockManager.builder(pool)
                .tableName(CheckerSchema.LOCK_TABLE)
                .schemaMode(io.fencepost.lock.jdbc.SchemaMode.NONE)
                .statementTimeout(Duration.ofSeconds(2))
                .holderName(holder)
                .build();
    }

    /** Token to key of every grant the store recorded (the trigger's history, replicated with the grants). */
    static Map<Long, String> grantsOn(String url) throws Exception {
        Map<Long, String> grants = new HashMap<>();
        try (Connection connection = DriverManager.getConnection(url);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT fencing_token, lock_key FROM checker_store_event WHERE op = 'grant'")) {
            while (rows.next()) {
                grants.put(rows.getLong(1), rows.getString(2));
            }
        }
        return grants;
    }

    /** The store's grants before and after {@code moment}, as recorded (with the database's clock) by the trigger. */
    record TokensAround(long highestBefore, long lowestAfter, long grantsAfter) {}

    static TokensAround tokensAround(String url, String moment) throws Exception {
        try (Connection connection = DriverManager.getConnection(url);
                PreparedStatement statement = connection.prepareStatement("SELECT"
                        + " coalesce(max(fencing_token) FILTER (WHERE at < ?::timestamptz), 0),"
                        + " coalesce(min(fencing_token) FILTER (WHERE at >= ?::timestamptz), 0),"
                        + " count(*) FILTER (WHERE at >= ?::timestamptz)"
                        + " FROM checker_store_event WHERE op = 'grant'")) {
            for (int i = 1; i <= 3; i++) {
                statement.setString(i, moment);
            }
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return new TokensAround(rows.getLong(1), rows.getLong(2), rows.getLong(3));
            }
        }
    }

    static void assertTokensIncreasePerKeyInGrantOrder(String url) throws Exception {
        try (Connection connection = DriverManager.getConnection(url);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM (SELECT fencing_token,"
                        + " lag(fencing_token) OVER (PARTITION BY lock_key ORDER BY at, id) AS previous"
                        + " FROM checker_store_event WHERE op = 'grant') g WHERE fencing_token <= previous")) {
            rows.next();
            assertThat(rows.getLong(1))
                    .as("grants whose token is not above the key's previous one")
                    .isZero();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
