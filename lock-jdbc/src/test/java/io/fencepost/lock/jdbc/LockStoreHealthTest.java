package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How {@link LockStoreHealth} judges what its statements saw: warnings that leave it up, and what takes it down.
 * The starter's {@code LockStoreHealthIndicatorTest} runs it against a real PostgreSQL.
 */
@Tag("server-version")
class LockStoreHealthTest {

    @Test
    void warnsWhenFsyncIsOff() {
        LockStoreHealth.Report report = assess(probe("on", "off", "", 0, 0, 0));

        assertThat(report.up()).isTrue();
        assertThat(report.details()).containsEntry("fsync", "off");
        assertThat(warnings(report))
                .singleElement(STRING)
                .startsWith("fsync is off: a crash of the database server can lose granted leases");
    }

    @Test
    void warnsWhenAsynchronousStandbysStreamFromTheDatabase() {
        LockStoreHealth.Report report = assess(probe("on", "on", "", 2, 2, 0));

        assertThat(report.up()).isTrue();
        assertThat(report.details()).containsEntry("standbys", Map.of("connected", 2L, "asynchronous", 2L));
        assertThat(warnings(report))
                .singleElement(STRING)
                .startsWith("2 asynchronous standbys stream from this database: a failover to one can lose the"
                        + " latest grants and re-issue fencing tokens");
    }

    @Test
    void deducesHiddenStandbysAreAsynchronousWhenNoSynchronousStandbyIsConfigured() {
        LockStoreHealth.Report report = assess(probe("on", "on", "", 1, 0, 1));

        assertThat(report.details()).containsEntry("standbys", Map.of("connected", 1L, "asynchronous", 1L));
        assertThat(warnings(report))
                .singleElement(STRING)
                .startsWith("1 asynchronous standby streams from this database");
    }

    @Test
    void reportsHiddenStandbysAsUnknownWhenSynchronousStandbysAreConfigured() {
        LockStoreHealth.Report report = assess(probe("on", "on", "ANY 1 (a, b)", 2, 0, 2));

        assertThat(report.details())
                .extractingByKey("standbys")
                .isEqualTo(Map.of(
                        "connected",
                        2L,
                        "asynchronous",
                        "unknown",
                        "note",
                        "this role lacks pg_read_all_stats, so PostgreSQL hides which standbys are synchronous"));
        assertThat(report.details()).doesNotContainKey("warnings");
    }

    @Test
    void warnsAboutALargeClockOffsetButStaysUp() {
        LockStoreHealth.Report report = assess(new LockStoreHealth.Probe(
                Duration.ofSeconds(-3),
                Duration.ofMillis(2),
                "on",
                "on",
                "",
                false,
                true,
                true,
                new LockStoreHealth.Standbys(0, 0, 0)));

        assertThat(report.up()).isTrue();
        assertThat(report.details()).containsEntry("clockOffsetMillis", -3000L);
        assertThat(warnings(report))
                .singleElement(STRING)
                .startsWith("the database clock is -3000 ms off the JVM clock: leases are unaffected");
    }

    @Test
    void isDownOnAReadOnlyStandby() {
        LockStoreHealth.Report report = assess(new LockStoreHealth.Probe(
                Duration.ZERO,
                Duration.ofMillis(1),
                "on",
                "on",
                "",
                true,
                true,
                true,
                new LockStoreHealth.Standbys(0, 0, 0)));

        assertThat(report.up()).isFalse();
        assertThat(report.details())
                .containsEntry("error", "the database is a read-only standby (in recovery): locks cannot be granted");
    }

    private static LockStoreHealth.Probe probe(
            String synchronousCommit,
            String fsync,
            String synchronousStandbyNames,
            long standbys,
            long asynchronous,
            long undisclosed) {
        return new LockStoreHealth.Probe(
                Duration.ofMillis(1),
                Duration.ofMillis(1),
                synchronousCommit,
                fsync,
                synchronousStandbyNames,
                false,
                true,
                true,
                new LockStoreHealth.Standbys(standbys, asynchronous, undisclosed));
    }

    private static LockStoreHealth.Report assess(LockStoreHealth.Probe probe) {
        return LockStoreHealth.assess(probe, "distributed_lock");
    }

    @SuppressWarnings("unchecked")
    private static List<String> warnings(LockStoreHealth.Report report) {
        return (List<String>) report.details().get("warnings");
    }
}
