package io.fencepost.lock.reliability.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.jdbc.test.PgBouncer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The checker's run in {@code mvn verify} ({@link CheckerConfig#ci()}): a minute of locking by three worker JVMs on
 * exclusive keys, a key of shared and exclusive leases and a key of permits, under every fault the orchestrator knows. Longer runs use the same test with system properties, for example
 * {@code -Dfencepost.checker.duration=PT10M} (see docs/reliability.md).
 */
@Tag("full")
class RandomizedCheckerTest {

    @Test
    void noOverlapNoTokenReorderingAndNoStaleWriteUnderFaults() throws Exception {
        check(CheckerConfig.fromSystemProperties());
    }

    /**
     * The same mix behind PgBouncer in transaction mode, where a session lock is not a connection's: the store finds
     * that out at start, keeps its lock queue off and wakes waiters by notifications and re-checks instead.
     */
    @Test
    void behindATransactionPoolerTheFallbackWakeUpsHoldTooUnderFaults() throws Exception {
        Assumptions.assumeTrue(PgBouncer.executable().isPresent(), PgBouncer.MISSING);
        CheckerConfig configured = CheckerConfig.fromSystemProperties();
        Duration half = configured.duration().dividedBy(2);
        // Fewer clients: PgBouncer shares its 20 server connections among all of them, and a worker paused inside a
        // fenced transaction keeps one of them (and the key's row) for the whole pause.
        check(configured.toBuilder()
                .pgBouncer(true)
                .duration(half)
                .processes(2)
                .threads(4)
                .sharedThreads(2)
                .sharedManagers(1)
                .modeThreads(2)
                .build());
    }

    private static void check(CheckerConfig config) throws Exception {
        Checker.Report report = Checker.run(config);
        String markdown = report.markdown();
        System.out.println(markdown);
        Path file = Path.of(
                "target",
                "checker",
                "report-" + config.mode().name().toLowerCase() + (config.pgBouncer() ? "-pgbouncer" : "") + ".md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, markdown);

        assertThat(report.problems()).as("worker problems").isEmpty();
        assertThat(report.verdict().stats().getOrDefault("clients: critical sections", 0L))
                .as("critical sections run (at least one per second of locking)")
                .isGreaterThanOrEqualTo(config.duration().toSeconds());
        if (config.faults()) {
            assertThat(report.faultCount()).as("faults injected").isPositive();
        }
        assertThat(report.verdict().violations()).as(markdown).isEmpty();
    }
}
