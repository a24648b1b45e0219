package io.fencepost.lock.reliability.checker;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.FencingTokenRejectedException;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.MultiLease;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.jdbc.JdbcFencingGuard;
import io.fencepost.lock.jdbc.PostgresLeaseStore;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaMode;
import io.fencepost.lock.spi.LockListener;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One worker JVM of the checker: {@code threads} threads lock random keys, sometimes pause (some past their lease
 * with renewal stopped, as a GC pause would), write the key's resource through the fencing guard, and release;
 * {@code modeThreads} more do the same on the mixed keys (shared or exclusive leases) and the permit keys.
 * Everything each holder was told and did goes to the history tables.
 *
 * <p>Arguments are {@code name=value} pairs; see {@link Checker} for the ones it passes.
 */
public final class CheckerWorker {

    /** What a critical section does between acquire and release. */
    enum Behaviour {
        /** Write once or twice, release. */
        QUICK,
        /** Work for one to three lease times while renewal keeps the lease, then write. */
        LONG_RENEWED,
        /** Freeze like a GC pause: renewal and the watchdog stop (the manager is closed), sleep past the lease, write. */
        FROZEN,
        /** Lease without renewal, work for about a lease time, then write. */
        NO_RENEW,
        /** Release with a minimum hold time: the key stays locked, ownerless, until it ends. */
        MIN_HOLD,
        /** Release at once, writing nothing: the key changes hands as fast as the lock allows. */
        ZERO_HOLD
    }

    private final Map<String, String> args;

    private final String process;

    private final WorkerMode mode;

    /** How many of an exclusive thread's sections take a set of keys together rather than one key. */
    private static final double SET_SHARE = 0.2;

    private final Duration leaseTime;

    private final Duration statementTimeout;

    private final long endAtMillis;

    private final double frozenShare;

    private final double longShare;

    private final double hotKeyShare;

    private final double zeroHoldShare;

    private final List<String> keys = new ArrayList<>();

    private final List<KeyPlan> modeKeys;

    private final double sharedShare;

    private final HikariDataSource lockPool;

    private final HikariDataSource workPool;

    private final History history;

    private final Sink sink = new Sink();

    private final JdbcFencingGuard guard = new JdbcFencingGuard(CheckerSchema.LOCK_TABLE);

    private final Map<String, AtomicLong> stats = new ConcurrentHashMap<>();

    private CheckerWorker(Map<String, String> args) {
        this.args = args;
        this.process = args.get("process");
        this.mode = WorkerMode.valueOf(args.get("mode"));
        this.leaseTime = Duration.ofMillis(Long.parseLong(args.get("leaseMs")));
        this.statementTimeout = Duration.ofMillis(Long.parseLong(args.get("statementTimeoutMs")));
        this.endAtMillis = System.currentTimeMillis() + Long.parseLong(args.get("durationMs"));
        this.frozenShare = Double.parseDouble(args.get("frozenShare"));
        this.longShare = Double.parseDouble(args.get("longShare"));
        this.hotKeyShare = Double.parseDouble(args.get("hotKeyShare"));
        this.zeroHoldShare = Double.parseDouble(args.get("zeroHoldShare"));
        int keyCount = Integer.parseInt(args.get("keys"));
        for (int k = 0; k < keyCount; k++) {
            keys.add(CheckerSchema.key(k));
        }
        this.modeKeys = KeyPlan.modeKeys(KeyPlan.of(
                keyCount,
                Integer.parseInt(args.get("mixedKeys")),
                Integer.parseInt(args.get("permitKeys")),
                Integer.parseInt(args.get("permits"))));
        this.sharedShare = Double.parseDouble(args.get("sharedShare"));
        int threads = Integer.parseInt(args.get("threads")) + Integer.parseInt(args.get("modeThreads"));
        // Every manager may hold a LISTEN connection besides its statements: room for all, so that the pool is
        // never what the run measures (pool exhaustion has a test of its own).
        this.lockPool = pool(args.get("lockUrl"), "checker-lock-" + process, 3 * threads + 4);
        this.workPool = pool(args.get("workUrl"), "checker-work-" + process, threads + 2);
        this.history = new History(args.get("historyUrl"), process);
    }

    public static void main(String[] arguments) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (String argument : arguments) {
            int eq = argument.indexOf('=');
            args.put(argument.substring(0, eq), argument.substring(eq + 1));
        }
        CheckerWorker worker = new CheckerWorker(args);
        int exit = worker.run();
        System.out.flush();
        System.exit(exit);
    }

    private int run() throws InterruptedException {
        int threads = Integer.parseInt(args.get("threads"));
        int modeThreads = Integer.parseInt(args.get("modeThreads"));
        int sharedThreads = Integer.parseInt(args.get("sharedThreads"));
        int sharedManagers = sharedThreads > 0 ? Integer.parseInt(args.get("sharedManagers")) : 0;
        long seed = Long.parseLong(args.get("seed"));
        history.start();
        List<LockManager> shared = new ArrayList<>();
        for (int m = 0; m < sharedManagers; m++) {
            shared.add(newManager());
        }
        List<Thread> workers = new ArrayList<>();
        AtomicInteger unexpected = new AtomicInteger();
        for (int t = 0; t < threads; t++) {
            LockManager manager = t < sharedThreads ? shared.get(t % sharedManagers) : null;
            String name = process + "/t" + t;
            workers.add(startLoop(name, new Random(seed * 31 + t), manager, null, unexpected));
        }
        // Threads on the mixed and permit keys: every other one shares a manager with the others of its kind, so
        // that several leases of one key are held through one manager as well as across managers and JVMs.
        LockManager modeManager = modeThreads > 1 ? newManager() : null;
        for (int t = 0; t < modeThreads; t++) {
            LockManager manager = t % 2 == 1 ? modeManager : null;
            String name = process + "/m" + t;
            workers.add(startLoop(name, new Random(seed * 37 + t), manager, modeKeys, unexpected));
        }
        for (Thread thread : workers) {
            thread.join();
        }
        if (modeManager != null) {
            close(modeManager);
        }
        shared.forEach(CheckerWorker::close);
        stats.computeIfAbsent("unexpected failures", k -> new AtomicLong()).addAndGet(unexpected.get());
        Map<String, Long> snapshot = new HashMap<>();
        stats.forEach((k, v) -> snapshot.put(k, v.get()));
        boolean flushed = history.finish(snapshot, Duration.ofSeconds(60));
        lockPool.close();
        workPool.close();
        System.out.println("worker " + process + " done: " + snapshot + (flushed ? "" : " (history NOT flushed)"));
        return unexpected.get() == 0 && flushed ? 0 : 1;
    }

    /** Starts a thread running {@link #loop}; anything it throws is printed and counted in {@code unexpected}. */
    private Thread startLoop(
            String name, Random random, LockManager manager, List<KeyPlan> plans, AtomicInteger unexpected) {
        Thread thread = new Thread(
                () -> {
                    try {
                        loop(name, random, manager, plans);
                    } catch (Throwable e) {
                        unexpected.incrementAndGet();
                        System.out.println("worker thread " + name + " failed unexpectedly:");
                        e.printStackTrace(System.out);
                    }
                },
                name);
        thread.start();
        return thread;
    }

    /**
     * One thread's critical sections until the end: on the exclusive keys when {@code plans} is null, else on the
     * given mixed and permit keys, in the mode each key's plan asks for.
     */
    private void loop(String thread, Random random, LockManager shared, List<KeyPlan> plans)
            throws InterruptedException {
        LockManager manager = shared != null ? shared : newManager();
        DatabaseClock clock = new DatabaseClock(args.get("historyUrl") + "&ApplicationName=checker-clock-" + process
                + "&connectTimeout=2&socketTimeout=5");
        while (System.currentTimeMillis() < endAtMillis) {
            if (plans == null && shared == null && takesSets() && random.nextDouble() < SET_SHARE) {
                setTurn(thread, random, manager, clock);
                continue;
            }
            String key;
            Behaviour behaviour;
            LeaseMode leaseMode = LeaseMode.EXCLUSIVE;
            int permits = 1;
            if (plans == null) {
                int keyIndex = pickKey(random, shared != null);
                key = keys.get(keyIndex);
                behaviour = choose(random, shared == null, keyIndex == 0 && hotTraffic());
            } else {
                KeyPlan plan = plans.get(random.nextInt(plans.size()));
                key = plan.key();
                // a third release at once, so that the key changes hands, and between kinds, as fast as it can
                behaviour = random.nextInt(3) == 0 ? Behaviour.ZERO_HOLD : choose(random, shared == null, false);
                if (plan.kind() == KeyPlan.Kind.PERMITS) {
                    leaseMode = LeaseMode.PERMITS;
                    permits = plan.permits();
                } else if (random.nextDouble() < sharedShare) {
                    leaseMode = LeaseMode.SHARED;
                }
            }
            LockOptions options = options(behaviour, random, leaseMode, permits);
            count("acquire attempts");
            Optional<Lease> acquired;
            try {
                acquired = manager.tryAcquire(key, options);
            } catch (LockStoreException e) {
                count("acquire failed (store)");
                Thread.sleep(20 + random.nextInt(200));
                continue;
            }
            if (acquired.isEmpty()) {
                count("not acquired (busy)");
                continue;
            }
            Lease lease = acquired.get();
            ClientGrant grant = sink.claim(lease, thread, behaviour, leaseMode, leaseTime);
            switch (behaviour) {
                case QUICK, MIN_HOLD -> {
                    write(lease, grant, thread);
                    if (random.nextInt(3) == 0) {
                        Thread.sleep(random.nextInt(20));
                        write(lease, grant, thread);
                    }
                }
                case LONG_RENEWED -> {
                    Thread.sleep(scaled(random, 1.0, 3.0));
                    write(lease, grant, thread);
                }
                case ZERO_HOLD -> {
                    // nothing: straight to the release, so the next waiter gets the key at once
                }
                case NO_RENEW -> {
                    Thread.sleep(scaled(random, 0.5, 1.5));
                    write(lease, grant, thread);
                }
                case FROZEN -> {
                    // A frozen process renews nothing and notices nothing: the manager's threads stop, and this
                    // holder still believes in its lease when it wakes up and writes.
                    close(manager);
                    Thread.sleep(scaled(random, 1.1, 2.0));
                    write(lease, grant, thread);
                    manager = newManager();
                }
            }
            release(lease, grant, clock);
        }
        if (shared == null) {
            close(manager);
        }
        clock.close();
    }

    /**
     * Whether this run's managers take sets of keys: the real store does; the broken stores wrap only its single-key
     * calls, so their runs keep to single keys.
     */
    private boolean takesSets() {
        return (mode == WorkerMode.CORRECT || mode == WorkerMode.UNFENCED)
                && setCandidates().size() >= 2;
    }

    /** The keys sets are drawn from: the exclusive keys, but the hot one while shared managers crowd it. */
    private List<String> setCandidates() {
        return hotTraffic() ? keys.subList(1, keys.size()) : keys;
    }

    /**
     * One critical section on a set of 2 or 3 exclusive keys (as many as there are, if fewer) taken together ({@link LockManager#tryAcquireAll}):
     * every lease of the set is claimed, written through and released like a single key's, so the analyzer checks
     * each key's grants, tokens and writes as it checks any other.
     */
    private void setTurn(String thread, Random random, LockManager manager, DatabaseClock clock)
            throws InterruptedException {
        List<String> candidates = new ArrayList<>(setCandidates());
        Collections.shuffle(candidates, random);
        List<String> set = List.copyOf(candidates.subList(0, Math.min(candidates.size(), 2 + random.nextInt(2))));
        Behaviour behaviour = choose(random, false, false); // never frozen: a set's holder keeps its manager
        LockOptions options = options(behaviour, random, LeaseMode.EXCLUSIVE, 1);
        count("set attempts");
        Optional<MultiLease> acquired;
        try {
            acquired = manager.tryAcquireAll(set, options);
        } catch (LockStoreException e) {
            count("set failed (store)");
            Thread.sleep(20 + random.nextInt(200));
            return;
        }
        if (acquired.isEmpty()) {
            count("set not acquired (busy)");
            return;
        }
        count("sets acquired");
        List<Lease> leases = acquired.get().leases();
        List<ClientGrant> grants = new ArrayList<>();
        for (Lease lease : leases) {
            grants.add(sink.claim(lease, thread, behaviour, LeaseMode.EXCLUSIVE, leaseTime));
        }
        if (behaviour == Behaviour.LONG_RENEWED) {
            Thread.sleep(scaled(random, 1.0, 3.0));
        } else if (behaviour == Behaviour.NO_RENEW) {
            Thread.sleep(scaled(random, 0.5, 1.5));
        }
        if (behaviour != Behaviour.ZERO_HOLD) {
            for (int i = 0; i < leases.size(); i++) {
                write(leases.get(i), grants.get(i), thread);
            }
        }
        for (int i = 0; i < leases.size(); i++) {
            release(leases.get(i), grants.get(i), clock);
        }
    }

    /**
     * Threads of shared managers pick the hot key (index 0) with {@code hotKeyShare}, else any key. While such
     * threads exist, the others keep to the remaining keys: their long and frozen holds would otherwise stop the hot
     * key's traffic for seconds at a time.
     */
    private int pickKey(Random random, boolean sharedManager) {
        int count = keys.size();
        if (sharedManager) {
            return random.nextDouble() < hotKeyShare ? 0 : random.nextInt(count);
        }
        return hotTraffic() ? 1 + random.nextInt(count - 1) : random.nextInt(count);
    }

    /** Whether the first key is the hot one: threads of shared managers crowd it, everybody else keeps off it. */
    private boolean hotTraffic() {
        return Integer.parseInt(args.get("sharedThreads")) > 0 && keys.size() > 1;
    }

    /**
     * What a critical section does. On the hot key only short ones (released at once, or one or two writes), so
     * that it changes hands as fast as the lock allows; long, frozen and unrenewed holds happen on the other keys.
     */
    private Behaviour choose(Random random, boolean ownManager, boolean hotKey) {
        double roll = random.nextDouble();
        if (hotKey) {
            return roll < zeroHoldShare ? Behaviour.ZERO_HOLD : Behaviour.QUICK;
        }
        if (ownManager && roll < frozenShare) {
            return Behaviour.FROZEN;
        }
        if (random.nextDouble() < longShare) {
            return Behaviour.LONG_RENEWED;
        }
        roll = random.nextDouble();
        if (roll < 0.04) {
            return Behaviour.NO_RENEW;
        }
        if (roll < 0.08) {
            return Behaviour.MIN_HOLD;
        }
        return Behaviour.QUICK;
    }

    private LockOptions options(Behaviour behaviour, Random random, LeaseMode leaseMode, int permits) {
        LockOptions.Builder options = LockOptions.builder()
                .shared(leaseMode == LeaseMode.SHARED)
                .permits(permits)
                .leaseTime(leaseTime)
                .waitTime(Duration.ofMillis(random.nextInt((int) (2 * leaseTime.toMillis()))))
                .name("checker");
        if (behaviour == Behaviour.NO_RENEW) {
            options.renew(false);
        }
        if (behaviour == Behaviour.MIN_HOLD) {
            options.minHoldTime(Duration.ofMillis(1 + random.nextInt((int) (leaseTime.toMillis() / 2))));
        }
        return options.build();
    }

    private long scaled(Random random, double from, double to) {
        return (long) (leaseTime.toMillis() * (from + random.nextDouble() * (to - from)));
    }

    /** One fenced write of the key's resource: guard, business update and write log commit together. */
    private void write(Lease lease, ClientGrant grant, String thread) {
        String resource = CheckerSchema.resource(lease.key());
        long token = lease.fencingToken();
        try (Connection connection = workPool.getConnection()) {
            connection.setAutoCommit(false);
            try {
                if (mode != WorkerMode.UNFENCED) {
                    guard.check(connection, resource, token);
                }
                long version;
                try (PreparedStatement update = connection.prepareStatement(
                        "UPDATE checker_resource SET version = version + 1, last_token = ? WHERE resource = ?"
                                + " RETURNING version")) {
                    update.setLong(1, token);
                    update.setString(2, resource);
                    try (ResultSet rows = update.executeQuery()) {
                        rows.next();
                        version = rows.getLong(1);
                    }
                }
                try (PreparedStatement log = connection.prepareStatement(
                        "INSERT INTO checker_write (resource, version, fencing_token, process, thread)"
                                + " VALUES (?, ?, ?, ?, ?)")) {
                    log.setString(1, resource);
                    log.setLong(2, version);
                    log.setLong(3, token);
                    log.setString(4, process);
                    log.setString(5, thread);
                    log.executeUpdate();
                }
                connection.commit();
                grant.writesAccepted.incrementAndGet();
            } catch (FencingTokenRejectedException e) {
                rollbackQuietly(connection);
                grant.writesRejected.incrementAndGet();
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(connection);
                grant.writesFailed.incrementAndGet();
            }
        } catch (SQLException e) {
            grant.writesFailed.incrementAndGet();
        }
    }

    private static void rollbackQuietly(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the pool drops it and the server rolls back
        }
    }

    private void release(Lease lease, ClientGrant grant, DatabaseClock clock) {
        // A section that releases at once skips the clock reading, a round trip that would double its hold; the
        // analyzer then tells its own delete from a foreign one by what its release answered.
        grant.releaseAskedAt = grant.behaviour == Behaviour.ZERO_HOLD ? null : clock.now();
        try {
            lease.release();
            grant.releaseOutcome = grant.storeRemoved ? "removed" : "not-removed";
        } catch (LockStoreException e) {
            grant.releaseOutcome = "failed";
        }
        sink.done(lease);
        history.add(grant);
    }

    private LockManager newManager() {
        String holder = process + "@checker";
        if (mode == WorkerMode.CORRECT || mode == WorkerMode.UNFENCED) {
            return PostgresLockManager.builder(lockPool)
                    .tableName(CheckerSchema.LOCK_TABLE)
                    .schemaMode(SchemaMode.NONE)
                    .statementTimeout(statementTimeout)
                    .holderName(holder)
                    .listener(sink)
                    .build();
        }
        PostgresLeaseStore real = new PostgresLeaseStore(lockPool, CheckerSchema.LOCK_TABLE, statementTimeout);
        return DefaultLockManager.builder(BrokenStores.wrap(mode, real, lockPool))
                .holderName(holder)
                .listener(sink)
                .build();
    }

    private static void close(LockManager manager) {
        try {
            ((AutoCloseable) manager).close();
        } catch (Exception e) {
            System.out.println("could not close a lock manager: " + e);
        }
    }

    private void count(String name) {
        stats.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
    }

    private static HikariDataSource pool(String url, String applicationName, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url + "&ApplicationName=" + applicationName + "&connectTimeout=2&socketTimeout=10"
                + "&tcpKeepAlive=true");
        config.setPoolName(applicationName);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(2_000);
        config.setValidationTimeout(1_000);
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    /** What one holder was told and did, for the history. */
    static final class ClientGrant {
        final String key;
        final long token;
        final String thread;
        final Behaviour behaviour;
        final LeaseMode mode;
        volatile Instant confirmedExpiresAt;
        /** The store's clock at the grant: the expiry it confirmed then, less the lease time asked for. */
        final Instant grantedAt;

        final AtomicInteger renewals = new AtomicInteger();
        volatile String lostReason;
        volatile boolean storeRemoved;
        volatile String releaseOutcome = "not-called";
        volatile Instant releaseAskedAt;
        final AtomicInteger writesAccepted = new AtomicInteger();
        final AtomicInteger writesRejected = new AtomicInteger();
        final AtomicInteger writesFailed = new AtomicInteger();

        ClientGrant(
                Lease lease,
                String thread,
                Behaviour behaviour,
                LeaseMode mode,
                Instant expiresAt,
                Duration leaseTime) {
            this.key = lease.key();
            this.token = lease.fencingToken();
            this.thread = thread;
            this.behaviour = behaviour;
            this.mode = mode;
            this.confirmedExpiresAt = expiresAt;
            this.grantedAt = expiresAt == null ? null : expiresAt.minus(leaseTime);
        }
    }

    /** Follows each lease through the engine's listener: confirmations, losses, the store's answer to release. */
    private static final class Sink implements LockListener {

        private final Map<String, ClientGrant> grants = new ConcurrentHashMap<>();

        private final Map<String, Instant> confirmed = new ConcurrentHashMap<>();

        private static String id(Lease lease) {
            return lease.key() + '#' + lease.fencingToken();
        }

        ClientGrant claim(Lease lease, String thread, Behaviour behaviour, LeaseMode mode, Duration leaseTime) {
            Instant expires = confirmed.getOrDefault(id(lease), lease.expiresAt());
            ClientGrant grant = new ClientGrant(lease, thread, behaviour, mode, expires, leaseTime);
            grants.put(id(lease), grant);
            return grant;
        }

        void done(Lease lease) {
            grants.remove(id(lease));
            confirmed.remove(id(lease));
        }

        @Override
        public void acquired(String name, Lease lease, Duration waited) {
            confirmed.put(id(lease), lease.expiresAt());
        }

        @Override
        public void renewed(String name, Lease lease) {
            ClientGrant grant = grants.get(id(lease));
            if (grant != null) {
                Instant expires = lease.expiresAt();
                if (grant.confirmedExpiresAt == null || expires.isAfter(grant.confirmedExpiresAt)) {
                    grant.confirmedExpiresAt = expires;
                }
                grant.renewals.incrementAndGet();
            } else {
                confirmed.merge(id(lease), lease.expiresAt(), (a, b) -> a.isAfter(b) ? a : b);
            }
        }

        @Override
        public void lost(String name, Lease lease, String reason) {
            ClientGrant grant = grants.get(id(lease));
            if (grant != null) {
                grant.lostReason = reason;
            }
        }

        @Override
        public void released(String name, Lease lease, boolean removed, Duration held) {
            ClientGrant grant = grants.get(id(lease));
            if (grant != null) {
                grant.storeRemoved = removed;
            }
        }
    }

    /**
     * Reads the database clock on a direct connection of the thread's own (no fault targets it), so that the history
     * can tell a release's own delete from someone else's. Null while the database cannot answer.
     */
    private static final class DatabaseClock {

        private final String url;

        private Connection connection;

        DatabaseClock(String url) {
            this.url = url;
        }

        Instant now() {
            try {
                if (connection == null || connection.isClosed()) {
                    connection = DriverManager.getConnection(url);
                }
                try (PreparedStatement select = connection.prepareStatement("SELECT clock_timestamp()");
                        ResultSet rows = select.executeQuery()) {
                    rows.next();
                    return rows.getObject(1, java.time.OffsetDateTime.class).toInstant();
                }
            } catch (SQLException e) {
                close();
                return null;
            }
        }

        void close() {
            try {
                if (connection != null) {
                    connection.close();
                }
            } catch (SQLException ignored) {
                // broken anyway
            }
            connection = null;
        }
    }

    /**
     * Writes the clients' history on a direct connection that no fault targets, from one thread, in batches; a
     * failed batch (say the database restarts) is retried until {@link #finish} gives up.
     */
    private static final class History {

        private static final String INSERT_SQL = """
                INSERT INTO checker_client_grant (process, thread, lock_key, fencing_token, confirmed_expires_at,
                    renewals, behaviour, release_outcome, lost_reason, writes_accepted, writes_rejected, writes_failed,
                    release_asked_at, lease_mode, granted_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (process, thread, lock_key, fencing_token) DO NOTHING
                """;

        private final String url;

        private final String process;

        private final ConcurrentLinkedQueue<ClientGrant> queue = new ConcurrentLinkedQueue<>();

        private final Thread writer;

        private volatile boolean finishing;

        private volatile long giveUpAt = Long.MAX_VALUE;

        private Connection connection;

        History(String url, String process) {
            this.url = url + "&ApplicationName=checker-history-" + process + "&connectTimeout=2&socketTimeout=20";
            this.process = process;
            this.writer = new Thread(this::drain, "checker-history");
            this.writer.setDaemon(true);
        }

        void start() {
            writer.start();
        }

        void add(ClientGrant grant) {
            queue.add(grant);
        }

        private void drain() {
            while (!(finishing && queue.isEmpty())) {
                List<ClientGrant> batch = new ArrayList<>();
                for (ClientGrant g; batch.size() < 500 && (g = queue.peek()) != null; ) {
                    batch.add(g);
                    queue.poll();
                }
                if (batch.isEmpty()) {
                    sleep(100);
                    continue;
                }
                while (!write(batch)) {
                    if (System.currentTimeMillis() > giveUpAt) {
                        return;
                    }
                    sleep(250);
                }
            }
        }

        private boolean write(List<ClientGrant> batch) {
            try {
                if (connection == null || connection.isClosed()) {
                    connection = DriverManager.getConnection(url);
                    connection.setAutoCommit(false);
                }
                try (PreparedStatement insert = connection.prepareStatement(INSERT_SQL)) {
                    for (ClientGrant g : batch) {
                        insert.setString(1, process);
                        insert.setString(2, g.thread);
                        insert.setString(3, g.key);
                        insert.setLong(4, g.token);
                        insert.setTimestamp(
                                5, g.confirmedExpiresAt == null ? null : Timestamp.from(g.confirmedExpiresAt));
                        insert.setInt(6, g.renewals.get());
                        insert.setString(7, g.behaviour.name());
                        insert.setString(8, g.releaseOutcome);
                        insert.setString(9, g.lostReason);
                        insert.setInt(10, g.writesAccepted.get());
                        insert.setInt(11, g.writesRejected.get());
                        insert.setInt(12, g.writesFailed.get());
                        insert.setTimestamp(13, g.releaseAskedAt == null ? null : Timestamp.from(g.releaseAskedAt));
                        insert.setString(14, g.mode.name().toLowerCase());
                        insert.setTimestamp(15, g.grantedAt == null ? null : Timestamp.from(g.grantedAt));
                        insert.addBatch();
                    }
                    insert.executeBatch();
                }
                connection.commit();
                return true;
            } catch (SQLException e) {
                closeQuietly();
                return false;
            }
        }

        private void closeQuietly() {
            try {
                if (connection != null) {
                    connection.close();
                }
            } catch (SQLException ignored) {
                // broken anyway
            }
            connection = null;
        }

        /** Flushes what is queued, then the process's counters; false when that did not finish in time. */
        boolean finish(Map<String, Long> stats, Duration timeout) throws InterruptedException {
            giveUpAt = System.currentTimeMillis() + timeout.toMillis();
            finishing = true;
            writer.join(timeout.toMillis() + 1_000);
            if (writer.isAlive() || !queue.isEmpty()) {
                return false;
            }
            while (System.currentTimeMillis() < giveUpAt) {
                try {
                    if (connection == null || connection.isClosed()) {
                        connection = DriverManager.getConnection(url);
                    }
                    try (PreparedStatement insert = connection.prepareStatement(
                            "INSERT INTO checker_client_stat (process, name, value) VALUES (?, ?, ?)")) {
                        for (Map.Entry<String, Long> stat : stats.entrySet()) {
                            insert.setString(1, process);
                            insert.setString(2, stat.getKey());
                            insert.setLong(3, stat.getValue());
                            insert.addBatch();
                        }
                        insert.executeBatch();
                    }
                    if (!connection.getAutoCommit()) {
                        connection.commit();
                    }
                    closeQuietly();
                    return true;
                } catch (SQLException e) {
                    closeQuietly();
                    TimeUnit.MILLISECONDS.sleep(250);
                }
            }
            return false;
        }

        private static void sleep(long millis) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
