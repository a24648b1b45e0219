package io.fencepost.lock.reliability.failover;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.reliability.support.Options;
import io.fencepost.lock.reliability.support.Pools;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Documents what goes wrong with an asynchronous standby (a replica that never
 * saw the grant is promoted). Deterministically: the replication stream is stalled before the grants, so the
 * standby never receives them. This test passes when the hazard shows, which is the point: run the lock table on a
 * primary with synchronous replication ({@link SynchronousFailoverTest}).
 */
@Tag("full")
class AsynchronousFailoverTest {

    @Test
    void aPromotedAsynchronousStandbyGrantsAHeldKeyAgainAndReissuesFencingTokens() throws Exception {
        try (ReplicatedPair pair = ReplicatedPair.start(false);
                HikariDataSource pool = Pools.hikari(pair.clientUrl(), "async-client", 4, 3_000)) {
            pair.installCheckerSchema(pool);
            pair.awaitStandbyCaughtUp();

            try (PostgresLockManager first = SynchronousFailoverTest.manager(pool, "first");
                    PostgresLockManager second = SynchronousFailoverTest.manager(pool, "second")) {
                pair.replication.stall(); // from here on, the standby hears nothing

                // Enough grants to use up the sequence values the standby knows were logged (32 at a time).
                List<Long> confirmedWhileCutOff = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    try (Lease lease = first.acquire("async:warm-up", LockOptions.of(Duration.ofSeconds(5)))) {
                        confirmedWhileCutOff.add(lease.fencingToken());
                    }
                }
                Lease held = first.acquire("async:held", LockOptions.of(Duration.ofSeconds(60)));
                confirmedWhileCutOff.add(held.fencingToken());

                pair.failOver();
                Map<Long, String> survived = SynchronousFailoverTest.grantsOn(pair.standby.jdbcUrl("postgres"));

                Lease doubleGrant = second.acquire(
                        "async:held", Options.leaseAndWait(Duration.ofSeconds(10), Duration.ofSeconds(20)));
                long lost = confirmedWhileCutOff.stream()
                        .filter(token -> !survived.containsKey(token))
                        .count();
                System.out.printf(
                        "asynchronous failover: %d of %d confirmed grants lost; key 'async:held' granted again with"
                                + " token %d while its first holder (token %d) still believes it holds it: %s%n",
                        lost,
                        confirmedWhileCutOff.size(),
                        doubleGrant.fencingToken(),
                        held.fencingToken(),
                        held.isHeld());

                assertThat(lost)
                        .as("confirmed grants the promoted standby never saw")
                        .isEqualTo(41);
                assertThat(held.isHeld())
                        .as("the first holder still believes it holds the key")
                        .isTrue();
                assertThat(doubleGrant.fencingToken())
                        .as("the second grant's fencing token is not above the first's: tokens were re-issued")
                        .isLessThanOrEqualTo(held.fencingToken());
                assertThat(confirmedWhileCutOff).contains(doubleGrant.fencingToken());
                doubleGrant.release();
            }
        }
    }
}
