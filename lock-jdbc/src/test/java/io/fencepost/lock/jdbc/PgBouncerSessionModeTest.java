package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.PgBouncer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Through PgBouncer in session pooling mode each client keeps its server session: the driver's prepared statements
 * are accepted and notifications arrive, so waiters are woken by push.
 */
@Tag("full")
class PgBouncerSessionModeTest {

    @RegisterExtension
    static final PgBouncer bouncer = new PgBouncer("session");

    @Test
    void managersStartWithTheDriversDefaultsAndWaitersAreWokenByPush() throws Exception {
        DataSource pool = bouncer.pool("", 10);
        try (PostgresLockManager holder = PostgresLockManager.builder(pool).build();
                PostgresLockManager waiter = PostgresLockManager.builder(bouncer.pool("", 10))
                        .pushFallback(Duration.ofSeconds(60))
                        .build()) {
            LockStoreHealth health =
                    new LockStoreHealth(pool, "distributed_lock", Duration.ofSeconds(5)).withWakeUpsOf(waiter);
            Lease held = holder.acquire("session-mode", LockOptions.of(Duration.ofSeconds(30)));
            CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> waiter.tryAcquire(
                    "session-mode",
                    LockOptions.builder()
                            .leaseTime(Duration.ofSeconds(30))
                            .waitTime(Duration.ofSeconds(120))
                            .build()));
            NotificationProbeTest.assertWokenByPush(health);

            held.release();
            assertThat(waiting.get(10, TimeUnit.SECONDS)).isPresent().get().satisfies(Lease::release);
        }
    }
}
