package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.LeaderElection;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.PostgresLockManager;
import java.time.Duration;
import java.util.Locale;
import java.util.function.BiFunction;

/**
 * The rules of the {@code fencepost.*} values, checked one property at a time so that a failure names exactly one.
 * They are the rules of the core library ({@link LockOptions}, {@link LeaderElection}) and of lock-jdbc, stated here
 * in the properties' terms.
 */
final class LockPropertyRules {

    private static final int TABLE_NAME_MAX_LENGTH = PostgresLockManager.MAX_TABLE_NAME_LENGTH;

    private static final String MAX_DURATION_TEXT = LockOptions.MAX_DURATION.toDays() + "d";

    /** The value of a property as written in the configuration, given its name and its bound value. */
    private final BiFunction<String, Object, String> written;

    LockPropertyRules(BiFunction<String, Object, String> written) {
        this.written = written;
    }

    /**
     * @throws InvalidLockPropertyException for the first invalid property
     */
    void check(LockProperties properties) {
        leaseTime("fencepost.lease-time", properties.getLeaseTime(), LockOptions.DEFAULT_LEASE_TIME);
        Duration waitTime = properties.getWaitTime();
        if (waitTime == null || waitTime.isNegative()) {
            throw invalid(
                    "fencepost.wait-time",
                    waitTime,
                    "the wait time must be zero (a single attempt) or positive",
                    "Set fencepost.wait-time to 0s for a single attempt, or to how long to wait, such as 10s");
        }
        atMostMax("fencepost.wait-time", waitTime, "the wait time");
        positive(
                "fencepost.max-hold-time",
                properties.getMaxHoldTime(),
                "the max hold time",
                LockOptions.DEFAULT_MAX_HOLD_TIME);
        atMostMax("fencepost.max-hold-time", properties.getMaxHoldTime(), "the max hold time");
        tableName(properties.getJdbc().getTableName());
        positive(
                "fencepost.jdbc.statement-timeout",
                properties.getJdbc().getStatementTimeout(),
                "the statement timeout",
                PostgresLockManager.DEFAULT_STATEMENT_TIMEOUT);
        int queueSessions = properties.getJdbc().getQueueSessions();
        if (queueSessions < 0) {
            throw invalid(
                    "fencepost.jdbc.queue-sessions",
                    queueSessions,
                    "the number of queue sessions must be 0 (no waiting in the server's lock queue) or more",
                    "Set fencepost.jdbc.queue-sessions to 0 to turn the queue off, or to how many pool connections"
                            + " waits may hold, such as 4");
        }
        sweep(properties.getJdbc().getSweep());
        Duration retryAfter = properties.getWeb().getRetryAfter();
        if (retryAfter == null || retryAfter.isNegative()) {
            throw invalid(
                    "fencepost.web.retry-after",
                    retryAfter,
                    "Retry-After must be zero or positive",
                    "Set fencepost.web.retry-after to a positive duration such as 1s");
        }
        properties
                .getLeader()
                .getGroups()
                .forEach((group, settings) -> leaseTime(
                        "fencepost.leader.groups." + group + ".lease-time",
                        settings.getLeaseTime(),
                        LeaderElection.DEFAULT_LEASE_TIME));
    }

    private void sweep(LockProperties.Sweep sweep) {
        positive(
                "fencepost.jdbc.sweep.interval",
                sweep.getInterval(),
                "the sweep interval",
                PostgresLockManager.DEFAULT_SWEEP_INTERVAL);
        int batchSize = sweep.getBatchSize();
        if (batchSize < 1 || batchSize > PostgresLockManager.MAX_SWEEP_BATCH_SIZE) {
            throw invalid(
                    "fencepost.jdbc.sweep.batch-size",
                    batchSize,
                    "the sweep batch size must be between 1 and " + PostgresLockManager.MAX_SWEEP_BATCH_SIZE,
                    "Set fencepost.jdbc.sweep.batch-size to a number such as "
                            + PostgresLockManager.DEFAULT_SWEEP_BATCH_SIZE
                            + ", or fencepost.jdbc.sweep.enabled to false to stop sweeping");
        }
        if (sweep.getFenceRowAge() != null) {
            positive(
                    "fencepost.jdbc.sweep.fence-row-age",
                    sweep.getFenceRowAge(),
                    "the fence row age",
                    Duration.ofDays(7));
        }
    }

    private void leaseTime(String property, Duration value, Duration example) {
        positive(property, value, "the lease time", example);
        if (value.toMillis() < 1) {
            throw invalid(
                    property,
                    value,
                    "the lease time must be at least 1ms",
                    "Set " + property + " to a positive duration such as " + text(example));
        }
        atMostMax(property, value, "the lease time");
    }

    private void positive(String property, Duration value, String what, Duration example) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw invalid(
                    property,
                    value,
                    what + " must be positive",
                    "Set " + property + " to a positive duration such as " + text(example));
        }
    }

    private void atMostMax(String property, Duration value, String what) {
        if (value.compareTo(LockOptions.MAX_DURATION) > 0) {
            throw invalid(
                    property,
                    value,
                    what + " must be at most " + MAX_DURATION_TEXT + " (200 years)",
                    "Set " + property + " to at most " + MAX_DURATION_TEXT);
        }
    }

    private void tableName(String table) {
        try {
            PostgresLockManager.requireValidTableName(table);
        } catch (IllegalArgumentException e) {
            throw invalid(
                    "fencepost.jdbc.table-name",
                    table,
                    "the lock table name must be an unquoted lower-case PostgreSQL identifier: lower-case letters,"
                            + " digits and _, starting with a letter or _, at most " + TABLE_NAME_MAX_LENGTH
                            + " characters",
                    "Set fencepost.jdbc.table-name to a name such as '" + suggestedTableName(table) + "'");
        }
    }

    /** The nearest valid name: lower case, other characters as {@code _}, cut to length. */
    private static String suggestedTableName(String table) {
        if (table == null || table.isBlank()) {
            return PostgresLockManager.DEFAULT_TABLE_NAME;
        }
        String name = table.strip().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        if (Character.isDigit(name.charAt(0))) {
            name = "_" + name;
        }
        return name.length() > TABLE_NAME_MAX_LENGTH ? name.substring(0, TABLE_NAME_MAX_LENGTH) : name;
    }

    private InvalidLockPropertyException invalid(String property, Object value, String rule, String fix) {
        return new InvalidLockPropertyException(property, written.apply(property, value), rule, fix);
    }

    /** A duration as one writes it in application.properties: 30s, 1h, 500ms. */
    private static String text(Duration duration) {
        if (duration.toMillis() % 1000 != 0) {
            return duration.toMillis() + "ms";
        }
        long seconds = duration.getSeconds();
        if (seconds % 86400 == 0) {
            return seconds / 86400 + "d";
        }
        if (seconds % 3600 == 0) {
            return seconds / 3600 + "h";
        }
        return seconds % 60 == 0 ? seconds / 60 + "m" : seconds + "s";
    }
}
