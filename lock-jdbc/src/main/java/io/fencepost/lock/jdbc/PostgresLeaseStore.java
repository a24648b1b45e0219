package io.fencepost.lock.jdbc;

import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.internal.RecentKeys;
import io.fencepost.lock.spi.AcquireRequest;
import io.fencepost.lock.spi.AcquireResult;
import io.fencepost.lock.spi.HandOver;
import io.fencepost.lock.spi.HandOverRequest;
import io.fencepost.lock.spi.LeaseHandOver;
import io.fencepost.lock.spi.LeaseStore;
import io.fencepost.lock.spi.LockQueue;
import io.fencepost.lock.spi.MultiAcquireRequest;
import io.fencepost.lock.spi.MultiAcquireResult;
import io.fencepost.lock.spi.MultiKeyAcquire;
import io.fencepost.lock.spi.Registration;
import io.fencepost.lock.spi.ReleaseRequest;
import io.fencepost.lock.spi.RenewRequest;
import io.fencepost.lock.spi.StoreLimits;
import io.fencepost.lock.spi.WaiterRelay;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The {@link LeaseStore} on PostgreSQL: one statement per call (see {@link PostgresStatements}), each in its own
 * autocommit transaction, with expiry decided by the database clock. It hands leases over locally
 * ({@link LeaseHandOver}) and across clients to registered waiters ({@link WaiterRelay}, in
 * {@link PostgresWaiterRelay}; fair mode uses them in turn), takes sets of keys in one statement
 * ({@link MultiKeyAcquire}, in {@link PostgresMultiKeyAcquire}) and wakes waiters by {@code LISTEN}/{@code NOTIFY}.
 */
public final class PostgresLeaseStore
        implements LeaseStore, LeaseHandOver, WaiterRelay, LockQueue, MultiKeyAcquire, AutoCloseable {

    /** How many places in the server's lock queues a store holds at most when nothing else is configured. */
    public static final int DEFAULT_QUEUE_SESSIONS = 4;

    /** {@link StoreLimits#EXCLUSIVE_PRECEDENCE}, as the statements bind it. */
    private static final long PRECEDENCE_MS = StoreLimits.EXCLUSIVE_PRECEDENCE.toMillis();

    private final TableName tableName;

    private final StatementRunner runner;

    private final PostgresStatements statements;

    private final NotificationListener listener;

    private final PostgresWaiterRelay relay;

    private final PostgresLockQueue queue;

    private final PostgresMultiKeyAcquire sets;

    /** Keys whose release found the lease waited for a moment ago; see {@link #release}. */
    private final RecentKeys waitedForKeys = RecentKeys.ofLastSecond();

    /**
     * A store on {@code tableName}, which must already exist (see {@link SchemaInitializer}).
     *
     * @param statementTimeout how long one lock call may take, the wait for a connection of the pool included,
     *     before it fails with {@link io.fencepost.lock.LockStoreException}
     * @throws IllegalArgumentException for an invalid table name or a non-positive timeout
     */
    public PostgresLeaseStore(DataSource dataSource, String tableName, Duration statementTimeout) {
        this(dataSource, tableName, statementTimeout, DEFAULT_QUEUE_SESSIONS);
    }

    /**
     * A store on {@code tableName}, which must already exist (see {@link SchemaInitializer}).
     *
     * @param statementTimeout how long one lock call may take, the wait for a connection of the pool included,
     *     before it fails with {@link io.fencepost.lock.LockStoreException}
     * @param queueSessions how many connections of the pool the store may hold at once as places in the server's
     *     lock queues ({@link LockQueue}): one per key that this store's manager waits for, or holds after waiting,
     *     in another client's wake; 0 to wait by notifications alone
     * @throws IllegalArgumentException for an invalid table name, a non-positive timeout or a negative number of
     *     queue sessions
     */
    public PostgresLeaseStore(DataSource dataSource, String tableName, Duration statementTimeout, int queueSessions) {
        Objects.requireNonNull(dataSource, "dataSource");
        if (queueSessions < 0) {
            throw new IllegalArgumentException("queue sessions must be 0 or more, was " + queueSessions);
        }
        this.tableName = TableName.of(tableName);
        this.runner = new StatementRunner(dataSource, statementTimeout);
        this.statements = new PostgresStatements(this.tableName);
        WaiterTag tag = WaiterTag.random();
        this.listener = new NotificationListener(
                dataSource, this.tableName.channel(), this.tableName.waiterChannel(tag), runner.timeoutMillis());
        this.queue = new PostgresLockQueue(
                dataSource, this.tableName, statementTimeout, queueSessions, statements, this::release);
        this.relay = new PostgresWaiterRelay(runner, queue, statements, listener, tag);
        this.sets = new PostgresMultiKeyAcquire(runner, statements);
    }

    /** What the start-up check found: whether the pool's connections share server sessions between transactions. */
    void sessionsShared(boolean shared) {
        queue.sessionsShared(shared);
    }

    @Override
    public Optional<Place> enter(String key, Duration timeout) {
        return queue.enter(key, timeout);
    }

    @Override
    public AcquireResult acquire(AcquireRequest request) {
        boolean exclusive = request.mode() == LeaseMode.EXCLUSIVE;
        Map<String, Object> more = exclusive
                ? Map.of("waiting", request.waiting(), "precedence_ms", PRECEDENCE_MS)
                : Map.of(
                        "waiting",
                        request.waiting(),
                        "mode",
                        request.mode().name().toLowerCase(Locale.ROOT),
                        "permits",
                        request.permits());
        return acquire(runner, queue, exclusive ? statements.acquire : statements.acquireShared, request, more);
    }

    /**
     * Runs an acquire statement ({@code statement}: plain, fair or registering) for {@code request}, with the grant's
     * parameters and the statement's own {@code more}, and reads the outcome.
     */
    static AcquireResult acquire(
            StatementRunner runner,
            PostgresLockQueue queue,
            NamedStatement statement,
            AcquireRequest request,
            Map<String, Object> more) {
        String action = "acquire lock '" + request.key() + "'";
        List<String> secrets = StoreFailures.secretsOf(request.ownerToken());
        Map<String, Object> parameters = grantParameters(request, more);
        // At the head of the key's queue, on the place's own session: the release before us has just woken it.
        return queue.onPlaceOf(
                        request.key(),
                        action,
                        secrets,
                        connection -> StatementRunner.query(
                                connection, statement, c -> parameters, LeaseRowMapper.acquireResult(request)))
                .orElseGet(() ->
                        runner.run(action, secrets, statement, parameters, LeaseRowMapper.acquireResult(request)));
    }

    @Override
    public MultiAcquireResult acquireAll(MultiAcquireRequest request) {
        return sets.acquireAll(request);
    }

    /**
     * A set's leases that nobody waits for leave in one statement; a lease that statement did not end (someone waits,
     * it is not ours any more, it keeps a minimum hold, its row was locked by another statement) is released on its
     * own, as {@link #release} ends one.
     */
    @Override
    public List<Boolean> releaseAll(List<ReleaseRequest> requests) {
        List<ReleaseRequest> together = requests.stream()
                .filter(request -> request.mode() == LeaseMode.EXCLUSIVE
                        && !request.keepsMinimumHold()
                        && !waitedForKeys.contains(request.key()))
                .toList();
        boolean distinct = together.stream().map(ReleaseRequest::key).distinct().count() == together.size();
        boolean inOne = together.size() > 1 && distinct;
        Map<String, Boolean> released = inOne ? sets.releaseUncontended(together) : Map.of();
        List<Boolean> results = new ArrayList<>(requests.size());
        for (ReleaseRequest request : requests) {
            Boolean wasLive = released.get(request.key());
            if (wasLive == null && inOne && together.contains(request)) {
                // Left by the statement: someone waits for the key, it is not ours, or its row was locked elsewhere;
                // the release that handles all of these decides.
                waitedForKeys.mark(request.key());
            }
            results.add(wasLive != null ? wasLive : release(request));
        }
        return results;
    }

    @Override
    public Optional<HandOver> handOver(HandOverRequest request) {
        AcquireRequest to = request.to();
        return runner.run(
                "hand over lock '" + to.key() + "'",
                StoreFailures.secretsOf(request.fromOwnerToken(), to.ownerToken()),
                statements.handOver,
                grantParameters(to, Map.of("from_owner", OwnerTokens.toUuid(request.fromOwnerToken()))),
                LeaseRowMapper::handOver);
    }

    /** What every granting statement binds (the key, the new owner, holder and lease), and {@code more}. */
    static Map<String, Object> grantParameters(AcquireRequest request, Map<String, Object> more) {
        Map<String, Object> parameters = new HashMap<>(more);
        parameters.put("key", request.key());
        parameters.put("owner", OwnerTokens.toUuid(request.ownerToken()));
        parameters.put("holder", request.holder());
        parameters.put("lease_ms", StatementRunner.millis(request.leaseTime(), "lease time", request.key()));
        return parameters;
    }

    /**
     * Renews exclusive leases in one statement and shared leases and permits in another (which takes their keys' draw
     * locks); a batch of one kind is one statement.
     */
    @Override
    public Map<RenewRequest, Instant> renew(Collection<RenewRequest> requests) {
        Map<Boolean, List<RenewRequest>> byKind =
                requests.stream().collect(Collectors.partitioningBy(request -> request.mode() == LeaseMode.EXCLUSIVE));
        Map<RenewRequest, Instant> renewed = new HashMap<>();
        renewed.putAll(renew(byKind.get(true), statements.renew));
        renewed.putAll(renew(byKind.get(false), statements.renewShared));
        return renewed;
    }

    private Map<RenewRequest, Instant> renew(List<RenewRequest> requests, NamedStatement statement) {
        if (requests.isEmpty()) {
            return Map.of();
        }
        int size = requests.size();
        List<String> secrets = new ArrayList<>(2 * size);
        String[] keys = new String[size];
        UUID[] owners = new UUID[size];
        Long[] leaseMillis = new Long[size];
        Long[] minHoldMicros = new Long[size];
        Map<LeaseRowMapper.OwnedKey, RenewRequest> byLease = new HashMap<>();
        int i = 0;
        for (RenewRequest request : requests) {
            keys[i] = request.key();
            owners[i] = OwnerTokens.toUuid(request.ownerToken());
            leaseMillis[i] = StatementRunner.millis(request.leaseTime(), "lease time", request.key());
            minHoldMicros[i] = request.minHoldTime().isZero()
                    ? 0L
                    : StatementRunner.micros(request.minHoldTime(), "min hold time", request.key());
            secrets.addAll(StoreFailures.secretsOf(request.ownerToken()));
            byLease.put(new LeaseRowMapper.OwnedKey(request.key(), owners[i].toString()), request);
            i++;
        }
        Map<LeaseRowMapper.OwnedKey, Instant> rows = runner.run(
                describeRenewal(requests),
                secrets,
                statement,
                (Connection connection) -> Map.of(
                        "keys", connection.createArrayOf("text", keys),
                        "owners", connection.createArrayOf("uuid", owners),
                        "lease_ms", connection.createArrayOf("int8", leaseMillis),
                        "min_hold_us", connection.createArrayOf("int8", minHoldMicros)),
                LeaseRowMapper::renewed);
        Map<RenewRequest, Instant> renewed = new HashMap<>();
        rows.forEach((lease, expiresAt) -> {
            RenewRequest request = byLease.get(lease);
            if (request != null) {
                renewed.put(request, expiresAt);
            }
        });
        return renewed;
    }

    @Override
    public boolean release(ReleaseRequest request) {
        String key = request.key();
        String action = "release lock '" + key + "'";
        List<String> secrets = StoreFailures.secretsOf(request.ownerToken());
        UUID owner = OwnerTokens.toUuid(request.ownerToken());
        if (request.mode() != LeaseMode.EXCLUSIVE) {
            long minHoldMicros = request.keepsMinimumHold()
                    ? StatementRunner.micros(request.minHoldTime(), "min hold time", key)
                    : 0L;
            return runner.run(
                    action,
                    secrets,
                    statements.releaseShared,
                    Map.of("key", key, "owner", owner, "min_hold_us", minHoldMicros),
                    LeaseRowMapper::releasedLive);
        }
        if (!request.keepsMinimumHold()) {
            // Most releases have nobody waiting: one plain delete. A lease marked as waited for takes the statement
            // that hands it to a registered waiter or wakes the waiters: a second round trip, which a key released
            // that way a moment ago skips by taking that statement first (it frees an unmarked lease as well).
            Map<String, Object> parameters = Map.of("key", key, "owner", owner);
            if (!waitedForKeys.contains(key)) {
                Optional<Boolean> uncontended = runner.run(
                        action, secrets, statements.releaseUncontended, parameters, LeaseRowMapper::releasedIfRow);
                if (uncontended.isPresent()) {
                    return uncontended.get();
                }
                waitedForKeys.mark(key);
            }
            // The release commits first (durably when it hands the key over); its wake-up follows in a transaction
            // of its own, on the same connection.
            return runner.withConnection(action, secrets, connection -> {
                ReleaseOutcome released =
                        StatementRunner.query(connection, statements.release, c -> parameters, ReleaseOutcome::read);
                released.wakeUpAfterCommit(connection, statements.wakeUp, key);
                return released.wasLive();
            });
        }
        return runner.run(
                action,
                secrets,
                statements.releaseKeepingMinHold,
                Map.of(
                        "key", key,
                        "owner", owner,
                        "min_hold_us", StatementRunner.micros(request.minHoldTime(), "min hold time", key)),
                LeaseRowMapper::releasedLive);
    }

    @Override
    public boolean forceRelease(String key) {
        return runForKey("force-release lock '", statements.forceRelease, key, LeaseRowMapper::releasedLive);
    }

    @Override
    public Optional<LeaseInfo> inspect(String key) {
        return runForKey("inspect lock '", statements.inspect, key, LeaseRowMapper::leaseInfo);
    }

    /** Runs a statement whose only parameter is the key, and which handles no secret. */
    private <T> T runForKey(String action, NamedStatement statement, String key, StatementRunner.RowReader<T> reader) {
        Objects.requireNonNull(key, "key");
        return runner.run(action + key + "'", List.of(), statement, Map.of("key", key), reader);
    }

    @Override
    public AcquireResult acquireOrRegister(AcquireRequest request, Registration registration) {
        return relay.acquireOrRegister(request, registration);
    }

    @Override
    public Subscription onHandOver(
            Registration registration, String ownerToken, Consumer<AcquireResult.Granted> handedOver) {
        return relay.onHandOver(registration, ownerToken, handedOver);
    }

    @Override
    public boolean withdraw(Registration registration, String ownerToken) {
        return relay.withdraw(registration, ownerToken);
    }

    /**
     * Wakes {@code wakeUp} when a release of {@code key} is announced: the first subscription starts this store's one
     * {@code LISTEN} connection, which it then keeps (it takes one connection of the pool).
     */
    @Override
    public Subscription subscribe(String key, Runnable wakeUp) {
        return listener.subscribe(key, wakeUp);
    }

    /** Stops the notification listener, if it was started, and returns its connection. */
    @Override
    public void close() {
        listener.close();
    }

    /** The lock table this store uses. */
    public String tableName() {
        return tableName.table();
    }

    /** How this store runs its statements, for the manager's other rows in its table. */
    StatementRunner runner() {
        return runner;
    }

    /** What this store's lock statements last saw of the database. */
    Reachability reachability() {
        return runner.reachability();
    }

    /** Whether the notification listener is connected now: waiters are woken by push rather than by polling. */
    boolean listening() {
        return listener.isConnected();
    }

    /** How this store's waiters are woken now: by notification, or by polling and why. */
    NotificationListener.WakeUps wakeUps() {
        return listener.wakeUps();
    }

    /** The advisory lock class id of the draw lock, for tests that need to block it. */
    int advisoryClassId() {
        return tableName.advisoryClassId();
    }

    @Override
    public String toString() {
        return "PostgresLeaseStore[table=" + tableName.table() + "]";
    }

    private static String describeRenewal(Collection<RenewRequest> requests) {
        int shown = 3;
        String keys = requests.stream()
                .limit(shown)
                .map(request -> "'" + request.key() + "'")
                .collect(Collectors.joining(", "));
        String more = requests.size() > shown ? " and " + (requests.size() - shown) + " more" : "";
        return "renew " + requests.size() + (requests.size() == 1 ? " lease" : " leases") + " (" + keys + more + ")";
    }
}
