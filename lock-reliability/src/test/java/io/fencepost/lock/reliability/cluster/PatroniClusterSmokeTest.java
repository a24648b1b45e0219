package io.fencepost.lock.reliability.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.reliability.support.Options;
import io.fencepost.lock.reliability.support.Pools;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The harness itself: the cluster comes up, a client finds the primary through the multi-host URL, and a lease held
 * across a switchover is still held by its holder alone afterwards, with fencing tokens continuing upward.
 */
@Tag("full")
class PatroniClusterSmokeTest {

    @Test
    void aLeaseAcquiredThroughTheMultiHostUrlSurvivesASwitchover() throws Exception {
        PatroniCluster.assumeAvailable();
        try (PatroniCluster cluster = PatroniCluster.start(PatroniCluster.Replication.SYNCHRONOUS, 0);
                HikariDataSource pool = Pools.hikari(cluster.url("postgres"), "ha-smoke", 4, 3_000);
                PostgresLockManager holder =
                        PostgresLockManager.builder(pool).holderName("holder").build();
                PostgresLockManager other =
                        PostgresLockManager.builder(pool).holderName("other").build()) {
            String before = cluster.primary().orElseThrow();
            Lease held = holder.acquire("ha:held", LockOptions.of(Duration.ofSeconds(60)));

            cluster.switchover();
            cluster.awaitHealthy(Duration.ofSeconds(90));

            assertThat(cluster.primary())
                    .as(cluster.describe())
                    .isPresent()
                    .get()
                    .isNotEqualTo(before);
            AtomicReference<Lease> next = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(30))
                    .ignoreException(LockStoreException.class)
                    .until(() -> {
                        next.set(other.acquire("ha:next", Options.leaseAndWait(Duration.ofSeconds(5), Duration.ZERO)));
                        return true;
                    });
            assertThat(next.get().fencingToken())
                    .as("a grant on the new primary")
                    .isGreaterThan(held.fencingToken());
            Optional<Lease> taken =
                    other.tryAcquire("ha:held", Options.leaseAndWait(Duration.ofSeconds(5), Duration.ZERO));
            assertThat(taken)
                    .as("the key held across the switchover is still taken")
                    .isEmpty();
            assertThat(held.isHeld()).as("its holder still holds it").isTrue();
            assertThat(held.release()).as("and releases it on the new primary").isTrue();
            next.get().release();
        }
    }
}
