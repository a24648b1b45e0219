package io.fencepost.lock.reliability.checker;

import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PgBouncer;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.reliability.cluster.PatroniCluster;
import io.fencepost.lock.reliability.support.FaultyProxy;
import io.fencepost.lock.reliability.support.LocalPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Runs the randomized checker: starts a database (a server of its own when the local binaries allow, so that it
 * can also be crashed; else a database on the shared test server), spawns the worker JVMs behind one
 * {@link FaultyProxy} each, injects faults until shortly before the end, waits for the workers and verifies the
 * history with {@link HistoryAnalyzer}. On a {@link PatroniCluster} instead, the workers run on client hosts of
 * their own and connect with a multi-host URL (no proxies), and {@link ClusterFaults} switches, kills, freezes and
 * partitions the cluster in turn with the faults that need no proxy.
 */
public final class Checker {

    /** The faults the orchestrator injects, with their relative weights. */
    enum Fault {
        TERMINATE_LOCK_BACKENDS(3, "pg_terminate_backend of lock connections"),
        TERMINATE_WRITE_BACKENDS(1, "pg_terminate_backend of business connections (mid-transaction)"),
        STALL(2, "proxy stalls both directions (0.3-2.5 s)"),
        STALL_RESPONSES(2, "proxy holds back responses only (0.3-2 s): statements commit, confirmations are lost"),
        CUT(2, "proxy cuts every connection of a worker"),
        LATENCY(1, "proxy adds 10-150 ms per chunk for 1-3 s"),
        PAUSE_PROCESS(2, "SIGSTOP of a worker JVM for 0.5-2.5 lease times, then SIGCONT"),
        KILL_PROCESS(1, "SIGKILL of a worker JVM, replaced by a new one (at most one per 20 s)"),
        PAUSE_QUEUED_BACKEND(
                2,
                "SIGSTOP of a server process blocked in the lock queue (its waiter's place), 0.5-2.5 lease times,"
                        + " then SIGCONT"),
        PAUSE_QUEUED_CLIENT(
                2, "SIGSTOP of a worker JVM while its lock connection waits in the server's lock queue, then SIGCONT"),
        KILL_QUEUED_CLIENT(
                1,
                "SIGKILL of a worker JVM while its lock connection waits in the server's lock queue, replaced by a new"
                        + " one (at most one kill per 20 s)"),
        RESTART_DATABASE(1, "immediate-mode crash and restart of PostgreSQL (at most one per 15 s)"),
        SWITCHOVER("cluster: switchover through Patroni", false),
        KILL_POSTMASTER("cluster: kill -9 of the primary's postmaster (Patroni restarts it)", false),
        CRASH_PRIMARY("cluster: kill -9 of the primary's Patroni and PostgreSQL (failover)", true),
        FREEZE_PRIMARY("cluster: SIGSTOP of the primary machine until a replica took over, then SIGCONT", true),
        PARTITION_PRIMARY("cluster: primary cut off from etcd's majority and the replicas until a failover", true),
        PARTITION_CLIENT("cluster: one client host cut off from the primary (2-6 s)", false),
        STALL_REPLICATION("cluster: SIGSTOP of the primary's WAL senders (1-4 s)", false),
        LOSE_UNREPLICATED_GRANTS(
                "cluster: replication stalled, a lease taken on the primary alone, the primary killed", true);

        final int weight;

        final String description;

        /** A fault of a Patroni cluster run, injected in a rotation rather than drawn by weight. */
        final boolean cluster;

        /** Whether the fault makes another node primary (its first grant afterwards is a failover time). */
        final boolean failover;

        Fault(int weight, String description) {
            this.weight = weight;
            this.description = description;
            this.cluster = false;
            this.failover = false;
        }

        Fault(String description, boolean failover) {
            this.weight = 0;
            this.description = description;
            this.cluster = true;
            this.failover = failover;
        }

        /** Whether the fault works on a cluster run, whose workers connect directly (no proxies, one server less). */
        boolean proxyless() {
            return switch (this) {
                case TERMINATE_LOCK_BACKENDS,
                        TERMINATE_WRITE_BACKENDS,
                        PAUSE_PROCESS,
                        KILL_PROCESS,
                        PAUSE_QUEUED_CLIENT,
                        KILL_QUEUED_CLIENT -> true;
                default -> cluster;
            };
        }
    }

    /** What a run did and found. */
    public record Report(
            CheckerConfig config,
            String server,
            Duration elapsed,
            Map<Fault, Integer> faults,
            HistoryAnalyzer.Verdict verdict,
            List<String> problems,
            List<ClusterFaults.Outage> outages) {

        /** Total faults injected. */
        public int faultCount() {
            return faults.values().stream().mapToInt(Integer::intValue).sum();
        }

        public int violationCount() {
            return verdict.violations().size();
        }

        /** The report as Markdown, for the console and docs/reliability.md. */
        public String markdown() {
            StringBuilder out = new StringBuilder();
            out.append("checker run: mode ")
                    .append(config.mode())
                    .append(", ")
                    .append(config.processes())
                    .append(" processes x ")
                    .append(config.threads())
                    .append(" threads (")
                    .append(config.sharedThreads())
                    .append(" of them over ")
                    .append(config.sharedManagers())
                    .append(" shared managers) on ")
                    .append(config.keys())
                    .append(" exclusive keys, and ")
                    .append(config.modeThreads())
                    .append(" threads on ")
                    .append(config.mixedKeys())
                    .append(" mixed key(s) (")
                    .append(Math.round(config.sharedShare() * 100))
                    .append(" % of their sections shared) and ")
                    .append(config.permitKeys())
                    .append(" permit key(s) (n from ")
                    .append(config.permits())
                    .append("); lease ")
                    .append(config.leaseTime().toMillis())
                    .append(" ms, ")
                    .append(config.duration().toSeconds())
                    .append(" s of locking (")
                    .append(elapsed.toSeconds())
                    .append(" s in all), seed ")
                    .append(config.seed())
                    .append(", on ")
                    .append(server)
                    .append("\n\n| faults injected | count |\n| --- | --- |\n");
            faults.forEach((fault, n) -> out.append("| ")
                    .append(fault.description)
                    .append(" | ")
                    .append(n)
                    .append(" |\n"));
            out.append("| **total** | **")
                    .append(faultCount())
                    .append("** |\n\n| what happened | count |\n| --- | --- |\n");
            new TreeMap<>(verdict.stats())
                    .forEach((name, n) -> out.append("| ")
                            .append(name)
                            .append(" | ")
                            .append(n)
                            .append(" |\n"));
            out.append("\nviolations found: ").append(violationCount()).append('\n');
            verdict.violationsByKind()
                    .forEach((kind, n) ->
                            out.append("- ").append(kind).append(": ").append(n).append('\n'));
            out.append(ClusterFaults.markdown(outages));
            verdict.violations().stream()
                    .limit(10)
                    .forEach(v -> out.append("  - ").append(v).append('\n'));
            problems.forEach(p -> out.append("problem: ").append(p).append('\n'));
            return out.toString();
        }
    }

    private static final Pattern URL = Pattern.compile("jdbc:postgresql://([^:/?]+)(?::(\\d+))?/([^?]*)(\\?.*)?");

    private final CheckerConfig config;

    private final Random random;

    private final Map<Fault, Integer> faults = new TreeMap<>();

    private final List<Worker> workers = new ArrayList<>();

    private final List<String> problems = new ArrayList<>();

    private final Path logDirectory;

    private LocalPostgres cluster;

    private PostgresTestDatabase shared;

    /** With {@link CheckerConfig#pgBouncer()}: PgBouncer in transaction mode, between the proxies and the server. */
    private PgBouncer.Running pgBouncer;

    private String host;

    private int port;

    private String database;

    private String query;

    private long lastKill;

    private long lastRestart;

    private PatroniCluster patroni;

    private ClusterFaults clusterFaults;

    private String clusterUrl;

    /** In a cluster run, whether the next fault is one of the cluster's (they alternate with the small ones). */
    private boolean clusterTurn = true;

    private Checker(CheckerConfig config) {
        this.config = config;
        this.random = new Random(config.seed() ^ 0x5DEECE66DL);
        this.logDirectory = Path.of("target", "checker", config.mode().name().toLowerCase() + "-" + config.seed());
    }

    /** Runs the checker as configured and returns what it found; never throws for a violation. */
    public static Report run(CheckerConfig config) throws Exception {
        Checker checker = new Checker(config);
        long start = System.nanoTime();
        try {
            String server = checker.startDatabase()
                    + (config.pgBouncer() ? ", the workers through PgBouncer in transaction mode" : "");
            checker.prepare();
            HistoryAnalyzer.Verdict verdict = checker.runWorkers();
            return new Report(
                    config,
                    server,
                    Duration.ofNanos(System.nanoTime() - start),
                    Map.copyOf(checker.faults),
                    verdict,
                    List.copyOf(checker.problems),
                    checker.clusterFaults == null ? List.of() : checker.clusterFaults.outages());
        } finally {
            checker.cleanUp();
        }
    }

    private String startDatabase() throws SQLException, IOException {
        if (config.cluster() != CheckerConfig.Cluster.NONE) {
            PatroniCluster.Replication replication = config.cluster() == CheckerConfig.Cluster.PATRONI_SYNCHRONOUS
                    ? PatroniCluster.Replication.SYNCHRONOUS
                    : PatroniCluster.Replication.ASYNCHRONOUS;
            patroni = PatroniCluster.start(replication, config.processes());
            try (Connection connection = DriverManager.getConnection(patroni.url("postgres"));
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE DATABASE checker");
            }
            clusterUrl = patroni.url("checker");
            clusterFaults = new ClusterFaults(patroni, clusterUrl, random);
            return "a three-node Patroni cluster with etcd in network namespaces, "
                    + replication.name().toLowerCase()
                    + " replication (workers on client hosts of their own, connecting with a multi-host URL)";
        }
        if (config.ownServer() && LocalPostgres.missing().isEmpty()) {
            cluster = LocalPostgres.init("checker", Map.of("fsync", "off", "max_connections", "300"))
                    .start();
            cluster.execute("CREATE DATABASE checker");
            host = "127.0.0.1";
            port = cluster.port();
            database = "checker";
            query = "?user=postgres";
            return "a PostgreSQL of its own (crashed and restarted during the run)";
        }
        shared = new PostgresTestDatabase(4).start();
        Matcher url = URL.matcher(shared.jdbcUrl());
        if (!url.matches()) {
            throw new IllegalStateException("unexpected test database URL " + shared.jdbcUrl());
        }
        host = url.group(1);
        port = url.group(2) == null ? 5432 : Integer.parseInt(url.group(2));
        database = url.group(3);
        query = url.group(4) == null ? "?" : url.group(4);
        return "the shared test server (no database restarts: "
                + LocalPostgres.missing().orElse("ownServer=false") + ")";
    }

    /** The port the workers' proxies forward to: PgBouncer's, when the run goes through it, else the server's. */
    private int poolerOrServerPort() throws IOException {
        if (!config.pgBouncer()) {
            return port;
        }
        if (pgBouncer == null) {
            pgBouncer = PgBouncer.Running.start(host, port, "transaction");
        }
        return pgBouncer.port();
    }

    private String directUrl() {
        if (clusterUrl != null) {
            return clusterUrl;
        }
        return "jdbc:postgresql://" + host + ":" + port + "/" + database + query;
    }

    private Connection admin() throws SQLException {
        return DriverManager.getConnection(
                directUrl() + "&ApplicationName=checker-admin&connectTimeout=2&socketTimeout=10");
    }

    private void prepare() throws SQLException, IOException {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(directUrl());
        PostgresLockManager.builder(dataSource)
                .tableName(CheckerSchema.LOCK_TABLE)
                .build()
                .close();
        try (Connection connection = admin()) {
            CheckerSchema.install(connection, config.keyPlans());
            if (config.mode() == WorkerMode.UNORDERED_HAND_OVER) {
                CheckerSchema.pauseBetweenDrawAndInsert(connection);
            }
        }
        Files.createDirectories(logDirectory);
    }

    private HistoryAnalyzer.Verdict runWorkers() throws Exception {
        long startMillis = System.currentTimeMillis();
        long endMillis = startMillis + config.duration().toMillis();
        for (int p = 0; p < config.processes(); p++) {
            Worker worker = new Worker(p, patroni == null ? new FaultyProxy(host, poolerOrServerPort()) : null);
            worker.spawn("p" + p, config.duration().toMillis());
            workers.add(worker);
        }
        if (config.faults()) {
            // On a cluster the workers start on client hosts and find the primary first: give them time to get going.
            Thread.sleep(
                    patroni != null ? 8_000 : Math.min(2_000, config.duration().toMillis() / 10));
            long faultsUntil = endMillis - Math.min(3_000, config.duration().toMillis() / 10);
            while (System.currentTimeMillis() < faultsUntil) {
                inject(pick(endMillis), endMillis);
                Thread.sleep(300 + random.nextInt(1_500));
            }
        }
        for (Worker worker : workers) {
            if (worker.proxy != null) {
                worker.proxy.resume();
            }
        }
        for (Worker worker : workers) {
            worker.awaitAll(Math.max(0, endMillis - System.currentTimeMillis()) + 120_000);
        }
        if (patroni != null) {
            patroni.heal();
            try {
                patroni.awaitHealthy(Duration.ofSeconds(120));
            } catch (IllegalStateException e) {
                // the history is still on whichever node is primary: analyze it, and fail the run for this too
                problems.add("at the end of the run: " + e.getMessage());
            }
            problems.addAll(clusterFaults.problems());
        }
        try (Connection connection = admin()) {
            if (clusterFaults != null) {
                clusterFaults.recordHeldGrants(connection);
            }
            return HistoryAnalyzer.analyze(connection);
        }
    }

    private Fault pick(long endMillis) {
        if (patroni != null) {
            // A cluster fault and its recovery take up to half a minute: none starts that the run cannot wait out.
            boolean room = endMillis - System.currentTimeMillis() > 40_000;
            clusterTurn = !clusterTurn;
            if (room && !clusterTurn) {
                return clusterFaults.next();
            }
        }
        List<Fault> allowed = new ArrayList<>();
        for (Fault fault : Fault.values()) {
            if (fault.cluster || (patroni != null && !fault.proxyless())) {
                continue;
            }
            boolean ok = switch (fault) {
                case KILL_PROCESS, KILL_QUEUED_CLIENT -> System.currentTimeMillis() - lastKill > 20_000;
                case RESTART_DATABASE -> cluster != null && System.currentTimeMillis() - lastRestart > 15_000;
                default -> true;
            };
            if (ok) {
                for (int i = 0; i < fault.weight; i++) {
                    allowed.add(fault);
                }
            }
        }
        return allowed.get(random.nextInt(allowed.size()));
    }

    private void inject(Fault fault, long endMillis) throws Exception {
        Worker worker = workers.get(random.nextInt(workers.size()));
        switch (fault) {
            case TERMINATE_LOCK_BACKENDS -> terminate("checker-lock-%");
            case TERMINATE_WRITE_BACKENDS -> terminate("checker-work-%");
            case STALL -> {
                worker.proxy.stall();
                Thread.sleep(300 + random.nextInt(2_200));
                worker.proxy.resume();
            }
            case STALL_RESPONSES -> {
                worker.proxy.stallResponses();
                Thread.sleep(300 + random.nextInt(1_700));
                worker.proxy.resume();
            }
            case CUT -> worker.proxy.cut();
            case LATENCY -> {
                worker.proxy.latency(10 + random.nextInt(140));
                Thread.sleep(1_000 + random.nextInt(2_000));
                worker.proxy.resume();
            }
            case PAUSE_PROCESS -> {
                long pid = worker.process.pid();
                signal("STOP", pid);
                Thread.sleep((long) (config.leaseTime().toMillis() * (0.5 + 2 * random.nextDouble())));
                signal("CONT", pid);
            }
            case KILL_PROCESS -> {
                lastKill = System.currentTimeMillis();
                worker.kill();
                worker.spawn(worker.name + "r", Math.max(1_000, endMillis - System.currentTimeMillis()));
            }
            case PAUSE_QUEUED_BACKEND -> {
                Optional<QueuedWaiter> waiter = queuedWaiter();
                if (waiter.isEmpty()) {
                    return; // nobody waits in the queue this moment: no fault to count
                }
                // The server process itself, as a frozen session would be: it may be granted its place meanwhile and
                // then hold it, stopped, until every other waiter's bounded wait runs out.
                signal("STOP", waiter.get().backendPid());
                Thread.sleep((long) (config.leaseTime().toMillis() * (0.5 + 2 * random.nextDouble())));
                signal("CONT", waiter.get().backendPid());
            }
            case PAUSE_QUEUED_CLIENT, KILL_QUEUED_CLIENT -> {
                Optional<Worker> waiting = queuedWaiter().flatMap(this::workerOf);
                if (waiting.isEmpty()) {
                    return;
                }
                if (fault == Fault.KILL_QUEUED_CLIENT) {
                    lastKill = System.currentTimeMillis();
                    waiting.get().kill();
                    waiting.get()
                            .spawn(waiting.get().name + "r", Math.max(1_000, endMillis - System.currentTimeMillis()));
                } else {
                    long pid = waiting.get().process.pid();
                    signal("STOP", pid);
                    Thread.sleep((long) (config.leaseTime().toMillis() * (0.5 + 2 * random.nextDouble())));
                    signal("CONT", pid);
                }
            }
            case RESTART_DATABASE -> {
                lastRestart = System.currentTimeMillis();
                cluster.crash();
                Thread.sleep(200 + random.nextInt(800));
                cluster.start();
            }
            default -> clusterFaults.inject(fault);
        }
        faults.merge(fault, 1, Integer::sum);
    }

    /** A lock connection blocked in the server's lock queue: its server process, and its worker's pool name. */
    private record QueuedWaiter(long backendPid, String applicationName) {}

    /**
     * One lock connection, at random, that waits in the server's lock queue now: an advisory lock not yet granted in
     * the queue's lock class, which is negative (the draw locks' class is not).
     */
    private Optional<QueuedWaiter> queuedWaiter() {
        try (Connection connection = admin();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT l.pid, a.application_name FROM pg_locks AS l"
                        + " JOIN pg_stat_activity AS a ON a.pid = l.pid"
                        + " WHERE l.locktype = 'advisory' AND NOT l.granted AND l.classid::int < 0"
                        + " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                        + " AND a.application_name LIKE 'checker-lock-%' ORDER BY random() LIMIT 1")) {
            return rows.next() ? Optional.of(new QueuedWaiter(rows.getLong(1), rows.getString(2))) : Optional.empty();
        } catch (SQLException e) {
            return Optional.empty(); // the database may be restarting
        }
    }

    /** The worker whose JVM the waiter's connection belongs to, if it still runs. */
    private Optional<Worker> workerOf(QueuedWaiter waiter) {
        return workers.stream()
                .filter(worker -> waiter.applicationName().equals("checker-lock-" + worker.name))
                .findFirst();
    }

    private void terminate(String applicationName) {
        try (Connection connection = admin();
                PreparedStatement terminate =
                        connection.prepareStatement("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                                + " WHERE datname = current_database() AND application_name LIKE ?"
                                + " AND pid <> pg_backend_pid() AND random() < 0.6")) {
            terminate.setString(1, applicationName);
            try (ResultSet rows = terminate.executeQuery()) {
                rows.next();
            }
        } catch (SQLException e) {
            // the database may be restarting; the fault is still counted as attempted
        }
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectErrorStream(true)
                .start()
                .waitFor(10, TimeUnit.SECONDS);
    }

    private void cleanUp() {
        for (Worker worker : workers) {
            worker.destroy();
            if (worker.proxy != null) {
                worker.proxy.close();
            }
        }
        if (clusterFaults != null) {
            clusterFaults.close();
        }
        if (pgBouncer != null) {
            pgBouncer.close();
        }
        if (patroni != null) {
            patroni.keepLogs(logDirectory.resolve("cluster"));
            patroni.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        if (shared != null) {
            shared.close();
        }
    }

    /** One worker slot: its proxy and the JVMs that ran in it (a killed one is replaced). */
    private final class Worker {

        final int index;

        final FaultyProxy proxy;

        final List<Process> killed = new ArrayList<>();

        String name;

        Process process;

        Path log;

        Worker(int index, FaultyProxy proxy) {
            this.index = index;
            this.proxy = proxy;
        }

        void spawn(String processName, long durationMillis) throws IOException {
            this.name = processName;
            this.log = logDirectory.resolve(processName + ".log");
            String viaProxy = proxy == null
                    ? clusterUrl
                    : "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + database + query
                            // behind a transaction pooler, no statement is prepared on a server session
                            + (pgBouncer == null ? "" : (query.endsWith("?") ? "" : "&") + "prepareThreshold=0");
            List<String> command = new ArrayList<>(patroni == null ? List.of() : patroni.clientCommand(index));
            command.addAll(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx192m",
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-cp",
                    System.getProperty("java.class.path"),
                    CheckerWorker.class.getName()));
            command.add("process=" + processName);
            command.add("mode=" + config.mode().name());
            command.add("lockUrl=" + viaProxy);
            command.add("workUrl=" + viaProxy);
            command.add("historyUrl=" + directUrl());
            command.add("threads=" + config.threads());
            command.add("sharedThreads=" + config.sharedThreads());
            command.add("sharedManagers=" + config.sharedManagers());
            command.add("keys=" + config.keys());
            command.add("mixedKeys=" + config.mixedKeys());
            command.add("permitKeys=" + config.permitKeys());
            command.add("permits=" + config.permits());
            command.add("modeThreads=" + config.modeThreads());
            command.add("sharedShare=" + config.sharedShare());
            command.add("hotKeyShare=" + config.hotKeyShare());
            command.add("zeroHoldShare=" + config.zeroHoldShare());
            command.add("leaseMs=" + config.leaseTime().toMillis());
            command.add("statementTimeoutMs=" + config.statementTimeout().toMillis());
            command.add("durationMs=" + durationMillis);
            command.add("frozenShare=" + config.frozenShare());
            command.add("longShare=" + config.longShare());
            command.add("seed=" + (config.seed() + 1_000L * index + killed.size()));
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
        }

        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            killed.add(process);
        }

        void awaitAll(long timeoutMillis) throws IOException, InterruptedException {
            if (!process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
                signal("QUIT", process.pid()); // a thread dump into its log
                Thread.sleep(1_000);
                process.destroyForcibly();
                problems.add("worker " + name + " did not finish in time (hung?): " + tail());
            } else if (process.exitValue() != 0) {
                problems.add("worker " + name + " exited with " + process.exitValue() + ": " + tail());
            }
        }

        String tail() throws IOException {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        }

        void destroy() {
            if (process != null && process.isAlive()) {
                process.destroyForcibly();
            }
        }
    }
}
