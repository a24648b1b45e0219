package io.fencepost.lock.jdbc;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.HandOver;
import io.fencepost.lock.spi.StoreLimits;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** Reads the rows that the lock statements return. */
final class LeaseRowMapper {

    private LeaseRowMapper() {}

    /**
     * Reads the acquire statements' row: a grant, or busy with the holders' remaining time. No row means busy for a
     * time we were not told: the caller did not wait (it was not asked for), or, in fair mode, the holder committed
     * after the statement's snapshot was taken.
     *
     * @throws IllegalStateException when the key's live leases count permits differently from the request
     */
    static StatementRunner.RowReader<AcquireResult> acquireResult(AcquireRequest request) {
        return rows -> {
            if (!rows.next()) {
                return AcquireResult.Busy.unknown();
            }
            if (rows.getBoolean("granted")) {
                return new AcquireResult.Granted(
                        rows.getLong("fencing_token"), instant(rows, "acquired_at"), instant(rows, "expires_at"));
            }
            LeaseMode held = LeaseMode.valueOf(rows.getString("lease_mode").toUpperCase(Locale.ROOT));
            StoreLimits.requirePermitAgreement(request, held, rows.getInt("permits"));
            long remainingMillis = rows.getLong("remaining_ms");
            if (rows.wasNull() || remainingMillis <= 0) {
                // A non-positive time means our snapshot saw an older, expired version of the row while the
                // newer one that beat us is live: a hint of "free now" would be wrong.
                return AcquireResult.Busy.unknown();
            }
            return AcquireResult.Busy.forAtMost(Duration.ofMillis(remainingMillis));
        };
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

    /** The renew statements' rows: the new expiry of each renewed lease, by key and owner token. */
    static Map<OwnedKey, Instant> renewed(ResultSet rows) throws SQLException {
        Map<OwnedKey, Instant> renewed = new HashMap<>();
        while (rows.next()) {
            renewed.put(new OwnedKey(rows.getString("lock_key"), rows.getString("owner")), instant(rows, "expires_at"));
        }
        return renewed;
    }

    /** A lease named by its key and its owner token (as PostgreSQL prints a uuid). */
    record OwnedKey(String key, String owner) {
        @Override
        public String toString() {
            return "OwnedKey[key=" + key + "]"; // the owner token is a secret
        }
    }

    /** A release statement's row, if it returned one: whether the lease it deleted was still live. */
    static Optional<Boolean> releasedIfRow(ResultSet rows) throws SQLException {
        return rows.next() ? Optional.of(rows.getBoolean("was_live")) : Optional.empty();
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
                instant(rows, "expires_at"),
                LeaseMode.valueOf(rows.getString("lease_mode").toUpperCase(Locale.ROOT)),
                rows.getInt("permits"),
                rows.getInt("leases")));
    }

    private static Instant instant(ResultSet rows, String column) throws SQLException {
        return rows.getObject(column, OffsetDateTime.class).toInstant();
    }
}
