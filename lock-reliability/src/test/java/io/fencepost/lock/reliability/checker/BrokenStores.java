package io.fencepost.lock.reliability.checker;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.HandOver;
import io.fencepost.lock.spi.HandOverRequest;
import io.fencepost.lock.spi.LeaseHandOver;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.RenewRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/** Deliberately broken {@link LeaseStore}s over the real one, to show that the checker catches each bug. */
final class BrokenStores {

    /**
     * A hand-over that draws its token without the per-key draw lock that every acquire takes: an acquire of another
     * client that drew its token before us can then be granted after our waiter released, with the lower token.
     */
    private static final String UNORDERED_HAND_OVER_SQL = """
            UPDATE checker_lock AS l
               SET owner_token = ?::uuid, holder = ?, fencing_token = nextval('checker_lock_fence_seq'),
                   acquired_at = clock_timestamp(), expires_at = clock_timestamp() + ? * interval '1 millisecond'
             WHERE l.lock_key = ? AND l.owner_token = ?::uuid AND l.expires_at > clock_timestamp()
            RETURNING l.fencing_token, l.acquired_at, l.expires_at, l.contended
            """;

    private BrokenStores() {}

    static LeaseStore wrap(WorkerMode mode, LeaseStore real, DataSource dataSource) {
        return switch (mode) {
            case UNORDERED_HAND_OVER -> new UnorderedHandOver(real, dataSource);
            case IGNORES_EXPIRY ->
                new Forwarding(real) {
                    @Override
                    public AcquireResult acquire(AcquireRequest request) {
                        AcquireResult result = real.acquire(request);
                        if (result instanceof AcquireResult.Busy) {
                            real.forceRelease(request.key()); // the bug: a live lease is treated as free
                            return real.acquire(request);
                        }
                        return result;
                    }
                };
            case BLIND_RELEASE ->
                new Forwarding(real) {
                    @Override
                    public boolean release(ReleaseRequest request) {
                        return real.forceRelease(request.key()); // the bug: no owner check
                    }
                };
            case PHANTOM_GRANT ->
                new Forwarding(real) {
                    @Override
                    public AcquireResult acquire(AcquireRequest request) {
                        AcquireResult result = real.acquire(request);
                        if (result instanceof AcquireResult.Busy
                                && ThreadLocalRandom.current().nextInt(4) == 0) {
                            // the bug: "granted" without the database, with a token of its own making
                            Instant now = Instant.now();
                            return new AcquireResult.Granted(
                                    ThreadLocalRandom.current().nextLong(1L << 40, 1L << 50),
                                    now,
                                    now.plus(request.leaseTime()));
                        }
                        return result;
                    }
                };
            case CORRECT, UNFENCED -> real;
        };
    }

    /** The real store, handing leases over with the unordered statement. */
    private static final class UnorderedHandOver extends Forwarding implements LeaseHandOver {

        private final DataSource dataSource;

        UnorderedHandOver(LeaseStore real, DataSource dataSource) {
            super(real);
            this.dataSource = dataSource;
        }

        @Override
        public Optional<HandOver> handOver(HandOverRequest request) {
            AcquireRequest to = request.to();
            return unorderedHandOver(
                    dataSource, to.key(), request.fromOwnerToken(), to.ownerToken(), to.holder(), to.leaseTime());
        }
    }

    private static Optional<HandOver> unorderedHandOver(
            DataSource dataSource,
            String key,
            String fromOwnerToken,
            String ownerToken,
            String holder,
            Duration leaseTime) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(UNORDERED_HAND_OVER_SQL)) {
            connection.setAutoCommit(true);
            statement.setObject(1, UUID.fromString(ownerToken));
            statement.setString(2, holder);
            statement.setLong(3, leaseTime.toMillis());
            statement.setString(4, key);
            statement.setObject(5, UUID.fromString(fromOwnerToken));
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next()) {
                    return Optional.empty();
                }
                return Optional.of(new HandOver(
                        new AcquireResult.Granted(
                                rows.getLong(1),
                                rows.getObject(2, OffsetDateTime.class).toInstant(),
                                rows.getObject(3, OffsetDateTime.class).toInstant()),
                        rows.getBoolean(4)));
            }
        } catch (SQLException e) {
            throw new LockStoreException("could not hand over lock '" + key + "': " + e.getMessage(), e);
        }
    }

    /** Passes every call to the real store; the broken variants override one method. */
    private static class Forwarding implements LeaseStore {

        private final LeaseStore real;

        Forwarding(LeaseStore real) {
            this.real = real;
        }

        @Override
        public AcquireResult acquire(AcquireRequest request) {
            return real.acquire(request);
        }

        @Override
        public Map<RenewRequest, Instant> renew(Collection<RenewRequest> requests) {
            return real.renew(requests);
        }

        @Override
        public boolean release(ReleaseRequest request) {
            return real.release(request);
        }

        @Override
        public boolean forceRelease(String key) {
            return real.forceRelease(key);
        }

        @Override
        public Optional<LeaseInfo> inspect(String key) {
            return real.inspect(key);
        }

        @Override
        public Subscription subscribe(String key, Runnable listener) {
            return real.subscribe(key, listener);
        }
    }
}
