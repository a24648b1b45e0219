package io.fencepost.lock.reliability.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.reliability.support.FaultyProxy;
import io.fencepost.lock.reliability.support.Options;
import io.fencepost.lock.reliability.support.Pools;
import io.fencepost.lock.spi.LockListener;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The network between the client and PostgreSQL misbehaves (a proxy written for the tests): latency, stalls in
 * both directions, responses held back while requests get through, and cut connections.
 */
@Tag("full")
class ProxyFaultsTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private FaultyProxy proxy;

    private HikariDataSource pool;

    private PostgresLockManager locks;

    private PostgresLockManager direct;

    private final AtomicInteger renewals = new AtomicInteger();

    @BeforeEach
    void connect() throws Exception {
        URI uri = URI.create(db.jdbcUrl().substring("jdbc:".length()));
        proxy = new FaultyProxy(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort());
        pool = Pools.hikari(Pools.viaPort(db.jdbcUrl(), proxy.port()), "proxied-locks", 6, 1_500);
        locks = PostgresLockManager.builder(pool)
                .statementTimeout(Duration.ofMillis(800))
                .holderName("behind-the-proxy")
                .listener(new LockListener() {
                    @Override
                    public void renewed(String name, Lease lease) {
                        renewals.incrementAndGet();
                    }
                })
                .build();
        direct = PostgresLockManager.builder(db.dataSource())
                .holderName("direct")
                .build();
    }

    @AfterEach
    void close() {
        proxy.resume();
        locks.close();
        direct.close();
        pool.close();
        proxy.close();
    }

    @Test
    void withFiftyMillisecondsPerPacketLeasesAreGrantedKeptAndReleased() throws Exception {
        proxy.latency(50);
        Lease lease = locks.acquire("proxy:latency", LockOptions.of(Duration.ofMillis(1500)));
        Thread.sleep(4_500);
        assertThat(lease.isHeld())
                .as("renewal kept the lease through three lease times")
                .isTrue();
        assertThat(renewals.get()).isGreaterThanOrEqualTo(3);
        assertThat(lease.release()).isTrue();
        assertThat(direct.inspect("proxy:latency")).isEmpty();
    }

    @Test
    void withResponsesHeldBackTheHolderGivesUpItsLeaseBeforeAnyoneElseCanTakeIt() throws Exception {
        Lease lease = locks.acquire("proxy:responses", LockOptions.of(Duration.ofMillis(1500)));
        AtomicLong lostAt = new AtomicLong();
        lease.onLost(e -> lostAt.set(System.nanoTime()));
        AtomicLong takenAt = new AtomicLong();
        CompletableFuture<Lease> competitor = CompletableFuture.supplyAsync(() -> {
            Lease taken = direct.acquire(
                    "proxy:responses", Options.leaseAndWait(Duration.ofSeconds(5), Duration.ofSeconds(15)));
            takenAt.set(System.nanoTime());
            return taken;
        });

        // Renewals still reach the database and commit there; their confirmations never come back.
        proxy.stallResponses();
        Lease taken = competitor.get(20, TimeUnit.SECONDS);

        assertThat(lostAt.get()).as("the holder was told it lost the lease").isNotZero();
        assertThat(lostAt.get())
                .as("the holder gave the lease up before the competitor got the key")
                .isLessThan(takenAt.get());
        assertThat(lease.isHeld()).isFalse();
        assertThat(taken.fencingToken()).isGreaterThan(lease.fencingToken());
        proxy.resume();
        taken.release();
    }

    @Test
    void anAcquireWhoseAnswerIsLostFailsClosedAndTheOrphanedGrantExpiresByItself() throws Exception {
        proxy.stallResponses();
        long start = System.nanoTime();
        assertThatThrownBy(() -> locks.acquire("proxy:orphan", LockOptions.of(Duration.ofSeconds(2))))
                .isInstanceOf(LockStoreException.class)
                .hasMessageContaining("acquire lock 'proxy:orphan'");
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("failed within the statement timeout, not after the lease")
                .isLessThan(Duration.ofMillis(1_900));
        assertThat(locks.heldLeases()).as("nobody believes they hold it").isEmpty();

        // The statement did commit: the key is held by nobody until its lease runs out.
        Optional<LeaseInfo> orphan = direct.inspect("proxy:orphan");
        assertThat(orphan).isPresent();
        assertThat(orphan.get().holder()).isEqualTo("behind-the-proxy");
        proxy.resume();
        Lease next = await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(50))
                .until(
                        () -> direct.tryAcquire("proxy:orphan", LockOptions.of(Duration.ofSeconds(2))),
                        Optional::isPresent)
                .orElseThrow();
        assertThat(next.fencingToken()).isGreaterThan(orphan.get().fencingToken());
        next.release();
    }

    @Test
    void aFullStallFailsAcquireWithinTheStatementTimeoutAndTheLockWorksOnceItEnds() {
        proxy.stall();
        long start = System.nanoTime();
        assertThatThrownBy(() -> locks.acquire("proxy:stall", LockOptions.of(Duration.ofSeconds(2))))
                .isInstanceOf(LockStoreException.class)
                .hasMessageContaining("proxy:stall");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        proxy.resume();
        proxy.cut();
        // The stalled statement's bytes may still reach the server on resume and commit a grant nobody knows of:
        // it keeps the key for its 2 s lease, so "busy" is as acceptable here as a store failure.
        Lease lease = await().atMost(Duration.ofSeconds(8))
                .ignoreExceptionsMatching(e -> e instanceof LockStoreException || e instanceof LockNotAcquiredException)
                .until(() -> locks.acquire("proxy:stall", LockOptions.of(Duration.ofSeconds(2))), l -> true);
        assertThat(lease.release()).isTrue();
    }

    @Test
    void cuttingEveryConnectionOverAndOverDoesNotCostAHeldLease() throws Exception {
        Lease lease = locks.acquire("proxy:cut", LockOptions.of(Duration.ofMillis(1500)));
        for (int i = 0; i < 6; i++) {
            Thread.sleep(400);
            proxy.cut();
        }
        int before = renewals.get();
        await().atMost(Duration.ofSeconds(3)).until(() -> renewals.get() > before);
        assertThat(lease.isHeld()).isTrue();
        assertThat(direct.tryAcquire("proxy:cut", LockOptions.of(Duration.ofSeconds(1))))
                .isEmpty();
        assertThat(lease.release()).isTrue();
    }
}
