package io.fencepost.lock.reliability.checker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
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
        CheckerConfig config = CheckerConfig.fromSystemProperties();
        Checker.Report report = Checker.run(config);
        String markdown = report.markdown();
        System.out.println(markdown);
        Path file =
                Path.of("target", "checker", "report-" + config.mode().name().toLowerCase() + ".md");
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
