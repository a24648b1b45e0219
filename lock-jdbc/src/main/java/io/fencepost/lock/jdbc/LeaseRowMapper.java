package io.fencepost.lock.jdbc;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.HandOver;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** Reads the rows that the lock statements return. */
final class LeaseRowMapper {

    private LeaseRowMapper() {}

    /**
     * The acquire statement's row: a grant, or busy with the holder's remaining time. No row means busy for a
     * time we were not told: the caller did not wait (it was not asked for), or, in fair mode, the holder
     * committed after the statement's snapshot was taken.
     */
    static AcquireResult acquireResult(ResultSet rows) throws SQLException {
        if (!rows.next()) {
            return AcquireResult.Busy.unknown();
        }
        if (rows.getBoolean("granted")) {
            return new AcquireResult.Granted(
                    rows.getLong("fencing_token"), instant(rows, "acquired_at"), instant(rows, "expires_at"));
        }
        long remainingMillis = rows.getLong("remaining_ms");
        if (rows.wasNull() || remainingMillis <= 0) {
            // A non-positive time means our snapshot saw an older, expired version of the row while the
            // newer one that beat us is live: a hint of "free now" would be wrong.
            return AcquireResult.Busy.unknown();
        }
        return AcquireResult.Busy.forAtMost(Duration.ofMillis(remainingMillis));
    }

    /** The hand-over statement's row, if any: the new grant, and whether others wait for the key. */
    static Optional<HandOver> handOver(ResultSet rows) throws SQLException {
        if (!rows.next()) {
            return Optional.empty();
        }
        return Optional.of(new HandOver(
                new AcquireResult.Granted(
                        rows.getLong("fencing_token"), instant(rows, "acquired_at"), instant(rows, "expires_at")),
                rows.getBoolean("contended")));
    }

    /** The renew statement's rows: the new expiry of each renewed key. */
    static Map<String, Instant> renewed(ResultSet rows) throws SQLException {
        Map<String, Instant> renewed = new HashMap<>();
        while (rows.next()) {
            renewed.put(rows.getString("lock_key"), instant(rows, "expires_at"));
        }
        return Map.copyOf(renewed);
    }

    /** The release statement's row, if any: whether the lease it deleted was still live. */
    static boolean releasedLive(ResultSet rows) throws SQLException {
        return rows.next() && rows.getBoolean("was_live");
    }

    /** The inspect statement's row, if any. */
    static Optional<LeaseInfo> leaseInfo(ResultSet rows) throws SQLException {
        if (!rows.next()) {
            return Optional.empty();
        }
        return Optional.of(new LeaseInfo(
                rows.getString("lock_key"),
                rows.getLong("fencing_token"),
                rows.getString("holder"),
                instant(rows, "acquired_at"),
                instant(rows, "expires_at")));
    }

    private static Instant instant(ResultSet rows, String column) throws SQLException {
        return rows.getObject(column, OffsetDateTime.class).toInstant();
    }
}
