package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockOptions;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acceptance 4 of the foundation: fencing tokens and granted leases survive an immediate-mode crash of the
 * database. The test starts its own PostgreSQL (never the shared server) with a hostile default of
 * {@code synchronous_commit = off}, so only the acquire statement's own durability setting can save the grants.
 */
@Tag("full")
class CrashRecoveryTest {

    @TempDir
    Path dataDirectory;

    @Test
    void fencingTokensKeepIncreasingAndGrantsSurviveAnImmediateCrash() throws Exception {
        long highestBeforeCrash;
        long heldToken;
        EmbeddedPostgres first = start();
        try (PostgresLockManager locks = PostgresLockManager.create(first.getPostgresDatabase())) {
            highestBeforeCrash = 0;
            for (int i = 0; i < 50; i++) {
                try (Lease lease = locks.acquire("crash:" + i, LockOptions.of(Duration.ofMinutes(10)))) {
                    highestBeforeCrash = Math.max(highestBeforeCrash, lease.fencingToken());
                }
            }
            Lease held = locks.acquire("crash:held", LockOptions.of(Duration.ofMinutes(10)));
            heldToken = held.fencingToken();
            highestBeforeCrash = Math.max(highestBeforeCrash, heldToken);

            crashImmediately(first);
        }

        EmbeddedPostgres second = start();
        try (PostgresLockManager locks = PostgresLockManager.create(second.getPostgresDatabase())) {
            Optional<LeaseInfo> survivor = locks.inspect("crash:held");
            assertThat(survivor).as("a confirmed grant survives the crash").isPresent();
            assertThat(survivor.get().fencingToken()).isEqualTo(heldToken);
            try (Lease after = locks.acquire("crash:after", LockOptions.of(Duration.ofMinutes(1)))) {
                assertThat(after.fencingToken()).isGreaterThan(highestBeforeCrash);
            }
            try (Lease again = locks.acquire("crash:0", LockOptions.of(Duration.ofMinutes(1)))) {
                assertThat(again.fencingToken()).isGreaterThan(highestBeforeCrash);
            }
        } finally {
            second.close();
        }
    }

    private EmbeddedPostgres start() throws IOException {
        return EmbeddedPostgres.builder()
                .setDataDirectory(dataDirectory)
                .setCleanDataDirectory(false)
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("fsync", "on")
                .setServerConfig("full_page_writes", "on")
                .start();
    }

    /** SIGQUIT to the postmaster is PostgreSQL's immediate shutdown: no checkpoint, recovery from WAL on start. */
    private void crashImmediately(EmbeddedPostgres postgres) throws Exception {
        String pid = Files.readAllLines(dataDirectory.resolve("postmaster.pid"))
                .get(0)
                .strip();
        Process kill = new ProcessBuilder("kill", "-QUIT", pid).inheritIO().start();
        assertThat(kill.waitFor()).isZero();
        long processId = Long.parseLong(pid);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> ProcessHandle.of(processId).map(p -> !p.isAlive()).orElse(true));
        try {
            postgres.close();
        } catch (IOException | RuntimeException alreadyDown) {
            // the server is gone; closing only tidies the handle
        }
    }
}
