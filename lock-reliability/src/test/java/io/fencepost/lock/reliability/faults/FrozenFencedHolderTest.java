package io.fencepost.lock.reliability.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.reliability.support.ChildJvm;
import io.fencepost.lock.reliability.support.Pools;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A holder JVM frozen with SIGSTOP right after binding its transaction to its lease (JdbcLeaseGuard): the server
 * ends its idle transaction when the lease's remaining time runs out, so another client is granted the key within
 * that time plus a second, and the frozen holder's transaction never commits.
 */
@Tag("full")
class FrozenFencedHolderTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private static final String KEY = "frozen:account";

    @Test
    void aHolderFrozenAfterTheCheckKeepsTheKeyNoLongerThanItsRemainingLeaseAndNeverCommits() throws Exception {
        PostgresLockManager.create(db.dataSource()).close();
        db.execute("CREATE TABLE frozen_write (token bigint PRIMARY KEY)");
        try (ChildJvm child = ChildJvm.start(
                FrozenFencedHolderChild.class, ProcessBuilder.Redirect.INHERIT, db.jdbcUrl(), KEY, "3000")) {
            String checked = child.readLine();
            assertThat(checked).startsWith("CHECKED ");
            long staleToken = Long.parseLong(checked.substring("CHECKED ".length()));
            child.signal("STOP");
            long stopped = System.nanoTime();
            long remainingMillis = Pools.queryLong(
                    db.jdbcUrl(),
                    "SELECT ceil(extract(epoch FROM (expires_at - clock_timestamp())) * 1000)::bigint"
                            + " FROM distributed_lock WHERE lock_key = '" + KEY + "'",
                    -1);
            assertThat(remainingMillis)
                    .as("the frozen holder's lease still runs")
                    .isPositive();

            long grantedAfterMillis;
            try (PostgresLockManager other =
                            PostgresLockManager.builder(db.dataSource()).build();
                    Lease fresh = other.acquire(
                            KEY,
                            LockOptions.builder()
                                    .waitTime(Duration.ofSeconds(20))
                                    .build())) {
                grantedAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped);
                assertThat(fresh.fencingToken()).isGreaterThan(staleToken);
            }
            System.out.printf(
                    "frozen fenced holder: key granted to another client %d ms after the freeze, remaining lease"
                            + " %d ms%n",
                    grantedAfterMillis, remainingMillis);
            assertThat(grantedAfterMillis)
                    .as("granted within the remaining lease (%d ms) plus 1 s", remainingMillis)
                    .isLessThanOrEqualTo(remainingMillis + 1_000);

            child.signal("CONT");
            child.send("COMMIT");
            assertThat(child.readLine()).as("the frozen holder's commit").startsWith("COMMIT_FAILED");
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(Pools.queryLong(db.jdbcUrl(), "SELECT count(*) FROM frozen_write", -1))
                    .as("the frozen holder's write")
                    .isZero();
        }
    }
}
