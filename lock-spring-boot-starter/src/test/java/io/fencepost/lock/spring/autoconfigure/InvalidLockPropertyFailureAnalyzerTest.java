package io.fencepost.lock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Every invalid {@code fencepost.*} value fails the start-up with a failure report that names the one property, its
 * value as written, the rule and the fix. No database: the values are checked when bound, before anything connects.
 */
class InvalidLockPropertyFailureAnalyzerTest {

    private static final String TABLE_NAME_RULE = "the lock table name must be an unquoted lower-case PostgreSQL"
            + " identifier: lower-case letters, digits and _, starting with a letter or _, at most 48 characters";

    private final ApplicationContextRunner contextRunner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class));

    static Stream<Arguments> invalidValues() {
        return Stream.of(
                invalid(
                        "fencepost.lease-time",
                        "-5s",
                        "the lease time must be positive",
                        "Set fencepost.lease-time to a positive duration such as 30s"),
                invalid(
                        "fencepost.lease-time",
                        "0s",
                        "the lease time must be positive",
                        "Set fencepost.lease-time to a positive duration such as 30s"),
                invalid(
                        "fencepost.lease-time",
                        "500us",
                        "the lease time must be at least 1ms",
                        "Set fencepost.lease-time to a positive duration such as 30s"),
                invalid(
                        "fencepost.wait-time",
                        "-1s",
                        "the wait time must be zero (a single attempt) or positive",
                        "Set fencepost.wait-time to 0s for a single attempt, or to how long to wait, such as 10s"),
                invalid(
                        "fencepost.max-hold-time",
                        "0s",
                        "the max hold time must be positive",
                        "Set fencepost.max-hold-time to a positive duration such as 1h"),
                invalid(
                        "fencepost.max-hold-time",
                        "80000d",
                        "the max hold time must be at most 73000d (200 years)",
                        "Set fencepost.max-hold-time to at most 73000d"),
                invalid(
                        "fencepost.jdbc.statement-timeout",
                        "0s",
                        "the statement timeout must be positive",
                        "Set fencepost.jdbc.statement-timeout to a positive duration such as 5s"),
                invalid(
                        "fencepost.jdbc.statement-timeout",
                        "-2s",
                        "the statement timeout must be positive",
                        "Set fencepost.jdbc.statement-timeout to a positive duration such as 5s"),
                invalid(
                        "fencepost.jdbc.queue-sessions",
                        "-1",
                        "the number of queue sessions must be 0 (no waiting in the server's lock queue) or more",
                        "Set fencepost.jdbc.queue-sessions to 0 to turn the queue off, or to how many pool connections"
                                + " waits may hold, such as 4"),
                invalid(
                        "fencepost.jdbc.sweep.interval",
                        "0s",
                        "the sweep interval must be positive",
                        "Set fencepost.jdbc.sweep.interval to a positive duration such as 1m"),
                invalid(
                        "fencepost.jdbc.sweep.batch-size",
                        "0",
                        "the sweep batch size must be between 1 and 100000",
                        "Set fencepost.jdbc.sweep.batch-size to a number such as 1000, or fencepost.jdbc.sweep.enabled"
                                + " to false to stop sweeping"),
                invalid(
                        "fencepost.jdbc.sweep.fence-row-age",
                        "-7d",
                        "the fence row age must be positive",
                        "Set fencepost.jdbc.sweep.fence-row-age to a positive duration such as 7d"),
                invalid(
                        "fencepost.jdbc.table-name",
                        "Locks-Table",
                        TABLE_NAME_RULE,
                        "Set fencepost.jdbc.table-name to a name such as 'locks_table'"),
                invalid(
                        "fencepost.jdbc.table-name",
                        "lock table",
                        TABLE_NAME_RULE,
                        "Set fencepost.jdbc.table-name to a name such as 'lock_table'"),
                invalid(
                        "fencepost.jdbc.table-name",
                        "l".repeat(64),
                        TABLE_NAME_RULE,
                        "Set fencepost.jdbc.table-name to a name such as '" + "l".repeat(48) + "'"),
                invalid(
                        "fencepost.web.retry-after",
                        "-1s",
                        "Retry-After must be zero or positive",
                        "Set fencepost.web.retry-after to a positive duration such as 1s"),
                invalid(
                        "fencepost.leader.groups.reports.lease-time",
                        "0s",
                        "the lease time must be positive",
                        "Set fencepost.leader.groups.reports.lease-time to a positive duration such as 10s"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("invalidValues")
    void anInvalidValueFailsTheStartUpWithAReportNamingThePropertyTheValueAndTheFix(
            String property, String value, String rule, String fix) {
        contextRunner.withPropertyValues(property + "=" + value).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = FailureAnalysisSupport.analyze(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .isEqualTo("Invalid value '" + value + "' for " + property + ": " + rule);
            assertThat(analysis.getAction()).isEqualTo(fix);
        });
    }

    @Test
    void theValueIsQuotedAsWrittenUnderARelaxedName() {
        contextRunner.withPropertyValues("fencepost.leaseTime=-5s").run(context -> {
            FailureAnalysis analysis = FailureAnalysisSupport.analyze(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .isEqualTo("Invalid value '-5s' for fencepost.lease-time: the lease time must be positive");
        });
    }

    @Test
    void anInvalidValueIsReportedAlsoWhenLockingIsDisabled() {
        contextRunner
                .withPropertyValues("fencepost.enabled=false", "fencepost.wait-time=-1s")
                .run(context -> assertThat(context.getStartupFailure())
                        .rootCause()
                        .isInstanceOf(InvalidLockPropertyException.class)
                        .hasMessageStartingWith("Invalid value '-1s' for fencepost.wait-time:"));
    }

    /** Spring Boot's own report of a value it cannot convert already names the property and the value. */
    @Test
    void anUnparsableDurationIsReportedByBootNamingThePropertyAndTheValue() {
        contextRunner.withPropertyValues("fencepost.lease-time=thirty seconds").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = FailureAnalysisSupport.analyzeAsBootDoes(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .contains("Property: fencepost.lease-time")
                    .contains("Value: \"thirty seconds\"")
                    .contains("java.time.Duration");
            assertThat(analysis.getAction()).contains("Update your application's configuration");
        });
    }

    @Test
    void theLimitsOfEachRuleAreValid() {
        contextRunner
                .withPropertyValues(
                        "fencepost.lease-time=1ms",
                        "fencepost.wait-time=0s",
                        "fencepost.max-hold-time=1ms",
                        "fencepost.jdbc.statement-timeout=1ms",
                        "fencepost.jdbc.table-name=_" + "9".repeat(47),
                        "fencepost.jdbc.allow-other-lock-tables=true",
                        "fencepost.web.retry-after=0s",
                        "fencepost.leader.groups.reports.lease-time=73000d")
                .run(context -> assertThat(context).hasNotFailed());
    }

    private static Arguments invalid(String property, String value, String rule, String fix) {
        return Arguments.of(property, value, rule, fix);
    }
}
