package io.fencepost.lock.reliability.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.reliability.cluster.PatroniCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The randomized checker on a three-node Patroni cluster: with synchronous replication no violation under
 * switchovers, failovers (killed, frozen, cut off primaries) and partitions; with asynchronous replication the
 * failover after a replication stall loses grants, and the checker must find the key granted twice.
 *
 * <p>The synchronous run of {@code mvn verify -Pfull} lasts 90 seconds of locking; longer ones take the same system
 * properties as {@link RandomizedCheckerTest}, for example {@code -Dfencepost.checker.duration=PT20M} (see
 * docs/high-availability.md).
 */
@Tag("full")
class PatroniClusterCheckerTest {

    private static final String CI_DURATION = "PT90S";

    @Test
    void synchronousReplicationNoViolationUnderSwitchoversFailoversAndPartitions() throws Exception {
        PatroniCluster.assumeAvailable();
        CheckerConfig config = clusterRun(CheckerConfig.Cluster.PATRONI_SYNCHRONOUS, CI_DURATION);
        Checker.Report report = Checker.run(config);
        String markdown = write(report, "report-cluster-synchronous.md");

        assertThat(report.problems()).as("worker and cluster problems").isEmpty();
        assertThat(report.outages())
                .as("at least one failover and one partition in the run:%n%s", markdown)
                .anyMatch(o -> o.fault().failover)
                .anyMatch(o ->
                        o.fault() == Checker.Fault.PARTITION_PRIMARY || o.fault() == Checker.Fault.PARTITION_CLIENT);
        assertThat(report.verdict().stats().getOrDefault("clients: critical sections", 0L))
                .as("critical sections run")
                .isGreaterThanOrEqualTo(config.duration().toSeconds());
        assertThat(report.verdict().violations()).as(markdown).isEmpty();
    }

    @Test
    void asynchronousReplicationLosesGrantsAndTheCheckerFindsTheKeyGrantedTwice() throws Exception {
        PatroniCluster.assumeAvailable();
        CheckerConfig config = clusterRun(CheckerConfig.Cluster.PATRONI_ASYNCHRONOUS, "PT60S");
        Checker.Report report = Checker.run(config);
        String markdown = write(report, "report-cluster-asynchronous.md");

        assertThat(report.outages())
                .as(markdown)
                .first()
                .extracting(ClusterFaults.Outage::fault)
                .isEqualTo(Checker.Fault.LOSE_UNREPLICATED_GRANTS);
        assertThat(report.verdict().count("phantom grant"))
                .as("confirmed grants the promoted replica never received:%n%s", markdown)
                .isPositive();
        assertThat(report.verdict().count("double grant"))
                .as("a key granted again while its lost grant was still held:%n%s", markdown)
                .isPositive();
    }

    /** The CI shape of a cluster run, unless system properties say otherwise. */
    private static CheckerConfig clusterRun(CheckerConfig.Cluster cluster, String duration) {
        CheckerConfig defaults = CheckerConfig.fromSystemProperties();
        return defaults.toBuilder()
                .cluster(cluster)
                .duration(Duration.parse(System.getProperty("fencepost.checker.duration", duration)))
                .threads(Integer.getInteger("fencepost.checker.threads", 6))
                .sharedThreads(Integer.getInteger("fencepost.checker.sharedThreads", 4))
                .sharedManagers(Integer.getInteger("fencepost.checker.sharedManagers", 2))
                .faults(true)
                .build();
    }

    private static String write(Checker.Report report, String name) throws IOException {
        String markdown = report.markdown();
        System.out.println(markdown);
        Path file = Path.of("target", "checker", name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, markdown);
        return markdown;
    }
}
