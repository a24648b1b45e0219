package io.fencepost.lock.reliability.checker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The checker is only worth its zero if it finds real bugs: each deliberately broken variant, run briefly, must
 * produce the violations its bug implies.
 */
class BrokenStoreCheckerTest {

    // A blind release does harm only when it comes late, after a takeover, while the next holder still holds the
    // key: that variant runs longer, with more frozen holders and many long, renewed ones.
    @ParameterizedTest(name = "{0} is caught as {1}")
    @CsvSource({
        "IGNORES_EXPIRY, overlap, 7, 0.35, 0.06",
        "BLIND_RELEASE, foreign delete, 9, 0.5, 0.5",
        "PHANTOM_GRANT, phantom grant, 7, 0.35, 0.06",
        "UNFENCED, stale write, 7, 0.5, 0.06"
    })
    void theCheckerCatchesABrokenVariant(
            WorkerMode mode, String expectedViolation, int seconds, double frozenShare, double longShare)
            throws Exception {
        CheckerConfig config = new CheckerConfig(
                Duration.ofSeconds(seconds),
                2,
                3,
                0,
                2,
                Duration.ofMillis(800),
                Duration.ofMillis(1000),
                frozenShare,
                longShare,
                false,
                false,
                mode,
                System.nanoTime());
        Checker.Report report = Checker.run(config);
        System.out.println(report.markdown());

        assertThat(report.problems()).as("worker problems").isEmpty();
        assertThat(report.verdict().count(expectedViolation))
                .as("'%s' violations found in a run of %s:%n%s", expectedViolation, mode, report.markdown())
                .isPositive();
    }
}
