package io.fencepost.lock.reliability.checker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The checker is only worth its zero if it finds real bugs: each deliberately broken variant, run briefly, must
 * produce the violations its bug implies.
 */
@Tag("full")
class BrokenStoreCheckerTest {

    // A blind release does harm only when it comes late, after a takeover, while the next holder still holds the
    // key: that variant runs longer, with more frozen holders and many long, renewed ones. An unordered hand-over
    // needs the production mix: several managers per JVM with several threads each on a hot key, releasing at once.
    @ParameterizedTest(name = "{0} is caught as {1}")
    @CsvSource({
        "IGNORES_EXPIRY, overlap, 7, 0.35, 0.06, false",
        "BLIND_RELEASE, foreign delete, 9, 0.5, 0.5, false",
        "PHANTOM_GRANT, phantom grant, 7, 0.35, 0.06, false",
        "UNFENCED, stale write, 7, 0.5, 0.06, false",
        "UNORDERED_HAND_OVER, token order, 15, 0, 0, true",
        "QUEUE_PLACE_GRANTS, phantom grant, 10, 0, 0, true"
    })
    void theCheckerCatchesABrokenVariant(
            WorkerMode mode,
            String expectedViolation,
            int seconds,
            double frozenShare,
            double longShare,
            boolean hotKeyOfManyManagers)
            throws Exception {
        CheckerConfig.Builder config = CheckerConfig.ci().toBuilder()
                .duration(Duration.ofSeconds(seconds))
                .processes(2)
                .threads(3)
                .sharedThreads(0)
                .keys(2)
                .modeThreads(0)
                .mixedKeys(0)
                .permitKeys(0)
                .leaseTime(Duration.ofMillis(800))
                .frozenShare(frozenShare)
                .longShare(longShare)
                .faults(false)
                .ownServer(false)
                .mode(mode);
        if (hotKeyOfManyManagers) {
            config.processes(3)
                    .threads(4)
                    .sharedThreads(4)
                    .sharedManagers(2)
                    .hotKeyShare(1)
                    .zeroHoldShare(1);
        }
        Checker.Report report = Checker.run(config.build());
        System.out.println(report.markdown());

        assertCaught(report, mode, expectedViolation);
    }

    // Only the mixed and permit keys, crowded by 3 JVMs of 6 threads each (3 with a manager each, 3 sharing one):
    // shared leases overlap all the time, permits are taken up to their number, and writers come in between.
    @ParameterizedTest(name = "{0} is caught as {1}")
    @CsvSource({
        "PERMITS_PLUS_ONE, permits exceeded, 8, 0, 1",
        "RELEASE_FORGETS_READERS, overlap, 8, 1, 0",
        "UNORDERED_SHARED_GRANT, token order, 10, 1, 0"
    })
    void theCheckerCatchesABrokenSharedOrPermitVariant(
            WorkerMode mode, String expectedViolation, int seconds, int mixedKeys, int permitKeys) throws Exception {
        Checker.Report report = Checker.run(CheckerConfig.ci().toBuilder()
                .duration(Duration.ofSeconds(seconds))
                .processes(3)
                .threads(0)
                .sharedThreads(0)
                .keys(0)
                .modeThreads(6)
                .mixedKeys(mixedKeys)
                .permitKeys(permitKeys)
                .permits(2)
                .leaseTime(Duration.ofMillis(800))
                .faults(false)
                .ownServer(false)
                .mode(mode)
                .build());
        System.out.println(report.markdown());

        assertCaught(report, mode, expectedViolation);
    }

    private static void assertCaught(Checker.Report report, WorkerMode mode, String expectedViolation) {
        assertThat(report.problems()).as("worker problems").isEmpty();
        assertThat(report.verdict().count(expectedViolation))
                .as("'%s' violations found in a run of %s:%n%s", expectedViolation, mode, report.markdown())
                .isPositive();
    }
}
