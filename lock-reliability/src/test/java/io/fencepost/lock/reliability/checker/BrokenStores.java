package io.fencepost.lock.reliability.checker;

import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.contract.ForwardingLeaseStore;
import io.fencepost.lock.jdbc.PostgresLeaseStore;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.HandOver;
import io.fencepost.lock.spi.HandOverRequest;
import io.fencepost.lock.spi.LeaseHandOver;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.LockQueue;
import io.fencepost.lock.spi.Registration;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.WaiterRelay;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
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

    /** The end of the last lease of a shared row becomes now, whatever the other readers' leases say. */
    private static final String FORGET_READERS_SQL = """
            UPDATE checker_lock SET expires_at = clock_timestamp()
             WHERE lock_key = ? AND lease_mode = 'shared' AND expires_at > clock_timestamp()
            """;

    /**
     * Joins live shared leases with a token drawn before the row is locked and without the draw lock, pausing
     * a random 0-4 ms after the draw as a busy server may: grants of the key can then be written out of draw order.
     */
    private static final String UNORDERED_SHARED_GRANT_SQL = """
            WITH drawn AS MATERIALIZED (
                SELECT nextval('checker_lock_fence_seq') AS token
            ), paused AS MATERIALIZED (
                SELECT d.token, clock_timestamp() AS now
                  FROM drawn AS d, (SELECT pg_sleep(random() * 0.004)) AS s
            )
            UPDATE checker_lock AS l
               SET holders = l.holders || jsonb_build_object(?::uuid::text, jsonb_build_object(
                       'fencing_token', p.token, 'holder', ?, 'acquired_at', p.now,
                       'expires_at', p.now + ? * interval '1 millisecond')),
                   fencing_token = p.token,
                   acquired_at = p.now,
                   expires_at = greatest(l.expires_at, p.now + ? * interval '1 millisecond')
              FROM paused AS p
             WHERE l.lock_key = ? AND l.lease_mode = 'shared' AND l.expires_at > p.now
               AND coalesce(l.exclusive_waits_until <= p.now, true)
            RETURNING p.token, p.now, p.now + ? * interval '1 millisecond'
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
            case PERMITS_PLUS_ONE ->
                new Forwarding(real) {
                    @Override
                    public AcquireResult acquire(AcquireRequest request) {
                        if (request.mode() != LeaseMode.PERMITS) {
                            return real.acquire(request);
                        }
                        // the bug: one permit more than the caller asked for
                        return real.acquire(new AcquireRequest(
                                request.key(),
                                request.ownerToken(),
                                request.holder(),
                                request.leaseTime(),
                                request.waiting(),
                                LeaseMode.PERMITS,
                                request.permits() + 1));
                    }
                };
            case RELEASE_FORGETS_READERS ->
                new Forwarding(real) {
                    @Override
                    public boolean release(ReleaseRequest request) {
                        boolean released = real.release(request);
                        if (request.mode() == LeaseMode.SHARED) {
                            update(dataSource, FORGET_READERS_SQL, request.key()); // the bug
                        }
                        return released;
                    }
                };
            case UNORDERED_SHARED_GRANT ->
                new Forwarding(real) {
                    @Override
                    public AcquireResult acquire(AcquireRequest request) {
                        if (request.mode() == LeaseMode.SHARED) {
                            Optional<AcquireResult.Granted> joined = unorderedSharedJoin(dataSource, request);
                            if (joined.isPresent()) {
                                return joined.get();
                            }
                        }
                        return real.acquire(request);
                    }
                };
            case QUEUE_PLACE_GRANTS -> new QueuePlaceGrants((PostgresLeaseStore) real, dataSource);
            case CORRECT, UNFENCED -> real;
        };
    }

    /**
     * The real store, its queue and its registrations, with one bug: a thread at the head of a key's queue is granted
     * the key (a fresh token, a lease from the database's now) without its row being looked at.
     */
    private static final class QueuePlaceGrants extends Forwarding implements LockQueue, WaiterRelay {

        private final PostgresLeaseStore store;

        private final DataSource dataSource;

        /** The keys whose place in the queue each thread holds. */
        private final Map<Thread, Set<String>> places = new ConcurrentHashMap<>();

        QueuePlaceGrants(PostgresLeaseStore store, DataSource dataSource) {
            super(store);
            this.store = store;
            this.dataSource = dataSource;
        }

        private boolean atHead(String key) {
            return places.getOrDefault(Thread.currentThread(), Set.of()).contains(key);
        }

        @Override
        public AcquireResult acquire(AcquireRequest request) {
            return atHead(request.key()) ? drawnGrant(dataSource, request) : store.acquire(request);
        }

        @Override
        public AcquireResult acquireOrRegister(AcquireRequest request, Registration registration) {
            return atHead(request.key())
                    ? drawnGrant(dataSource, request)
                    : store.acquireOrRegister(request, registration);
        }

        @Override
        public Subscription onHandOver(
                Registration registration, String ownerToken, Consumer<AcquireResult.Granted> handedOver) {
            return store.onHandOver(registration, ownerToken, handedOver);
        }

        @Override
        public boolean withdraw(Registration registration, String ownerToken) {
            return store.withdraw(registration, ownerToken);
        }

        @Override
        public Optional<Place> enter(String key, Duration timeout) {
            Optional<Place> place = store.enter(key, timeout);
            if (place.isEmpty()) {
                return place;
            }
            Thread thread = Thread.currentThread();
            places.computeIfAbsent(thread, t -> ConcurrentHashMap.newKeySet()).add(key);
            Place real = place.get();
            return Optional.of(new Place() {
                @Override
                public boolean waitedBehindOthers() {
                    return real.waitedBehindOthers();
                }

                @Override
                public void leave() {
                    places.getOrDefault(thread, Set.of()).remove(key);
                    real.leave();
                }

                @Override
                public boolean releaseAndLeave(ReleaseRequest request) {
                    places.getOrDefault(thread, Set.of()).remove(key);
                    return real.releaseAndLeave(request);
                }
            });
        }
    }

    /** A grant of a token drawn from the key's sequence, with no row behind it. */
    private static AcquireResult drawnGrant(DataSource dataSource, AcquireRequest request) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement =
                        connection.prepareStatement("SELECT nextval('checker_lock_fence_seq'), clock_timestamp()")) {
            connection.setAutoCommit(true);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                Instant now = row.getObject(2, OffsetDateTime.class).toInstant();
                return new AcquireResult.Granted(row.getLong(1), now, now.plus(request.leaseTime()));
            }
        } catch (SQLException e) {
            throw new LockStoreException("could not draw a token: " + e, e);
        }
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

    private static void update(DataSource dataSource, String sql, String key) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            connection.setAutoCommit(true);
            statement.setString(1, key);
            statement.executeUpdate();
        } catch (SQLException e) {
            throw new LockStoreException("could not update lock '" + key + "': " + e.getMessage(), e);
        }
    }

    private static Optional<AcquireResult.Granted> unorderedSharedJoin(DataSource dataSource, AcquireRequest request) {
        long leaseMillis = request.leaseTime().toMillis();
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(UNORDERED_SHARED_GRANT_SQL)) {
            connection.setAutoCommit(true);
            statement.setString(1, request.ownerToken());
            statement.setString(2, request.holder());
            statement.setLong(3, leaseMillis);
            statement.setLong(4, leaseMillis);
            statement.setString(5, request.key());
            statement.setLong(6, leaseMillis);
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next()) {
                    return Optional.empty();
                }
                return Optional.of(new AcquireResult.Granted(
                        rows.getLong(1),
                        rows.getObject(2, OffsetDateTime.class).toInstant(),
                        rows.getObject(3, OffsetDateTime.class).toInstant()));
            }
        } catch (SQLException e) {
            throw new LockStoreException("could not join lock '" + request.key() + "': " + e.getMessage(), e);
        }
    }

    /** Passes every call to the real store; the broken variants override one method. */
    private static class Forwarding extends ForwardingLeaseStore {

        final LeaseStore real;

        Forwarding(LeaseStore real) {
            super(real);
            this.real = real;
        }
    }
}
