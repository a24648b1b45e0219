package io.fencepost.lock.reliability.cluster;

import static org.awaitility.Awaitility.await;

import io.fencepost.lock.reliability.support.LocalPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * Three machines, each a network namespace with an etcd member, a Patroni and the PostgreSQL it runs (the local
 * binaries), plus client hosts for the checker's worker JVMs, all on one bridge ({@link Network}). Clients use
 * {@link #url(String)}, a multi-host JDBC URL that finds the primary wherever it is.
 *
 * <p>The faults act as they would between machines: a switchover through Patroni's REST API; {@code kill -9} of the
 * primary's postmaster (Patroni, still holding the leader key, restarts it in place) or of the whole node (Patroni
 * too: the replicas take over once the leader key expires); {@code SIGSTOP} of every process of the node (a paused
 * VM: it wakes up believing it is primary); the primary cut off from the other two machines (its etcd member is then
 * the minority); a client cut off from the primary; replication stalled ({@code SIGSTOP} of the primary's WAL
 * senders). {@link #heal()} undoes them all. {@link #close()} removes everything, processes and files, and runs at
 * JVM exit too, for a test that never got to it.
 */
public final class PatroniCluster implements AutoCloseable {

    /** How the cluster replicates. */
    public enum Replication {
        /** {@code synchronous_mode} and {@code synchronous_mode_strict}: a commit waits for one standby. */
        SYNCHRONOUS,
        /** {@code synchronous_mode: false}: a commit is confirmed before any standby has it. */
        ASYNCHRONOUS
    }

    /** The leader key's time to live (s): how long a dead or cut-off primary goes unnoticed at most. */
    public static final int TTL_SECONDS = 10;

    private static final String PATRONI = "/usr/bin/patroni";

    private static final String ETCD = "/usr/bin/etcd";

    private static final String SCOPE = "fencepost";

    private static final int NODES = 3;

    private static final java.util.regex.Pattern SYNC_STANDBY =
            java.util.regex.Pattern.compile("\"role\":\\s*\"sync_standby\"");

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    /** One machine of the cluster. */
    record Node(String name, String address, Path directory) {

        Path data() {
            return directory.resolve("data");
        }

        String rest() {
            return "http://" + address + ":8008";
        }
    }

    private final Replication replication;

    private final Network network;

    private final Path base;

    private final List<Node> nodes = new ArrayList<>();

    private final List<String> clients = new ArrayList<>();

    private final List<String> clientAddresses = new ArrayList<>();

    private final Thread cleanUpAtExit = new Thread(this::removeEverything, "patroni-cluster-clean-up");

    private boolean closed;

    private PatroniCluster(Replication replication, Network network, Path base) {
        this.replication = replication;
        this.network = network;
        this.base = base;
    }

    /** What is missing to run the cluster here, if anything. */
    public static Optional<String> missing() {
        if (!Files.isExecutable(Path.of(PATRONI))) {
            return Optional.of(PATRONI + " is missing: apt-get install patroni");
        }
        if (!Files.isExecutable(Path.of(ETCD))) {
            return Optional.of(ETCD + " is missing: apt-get install etcd-server");
        }
        Network.Result python = Network.exec(List.of("/usr/bin/python3", "-c", "import etcd, psycopg2, yaml"));
        if (python.exit() != 0) {
            return Optional.of("Patroni's Python modules are missing ("
                    + python.output().strip() + "): apt-get install python3-etcd python3-psycopg2");
        }
        Optional<String> postgres = LocalPostgres.missing();
        if (postgres.isPresent()) {
            return postgres;
        }
        return Network.missing();
    }

    /** Skips the calling test, saying what is missing, unless the cluster can run here. */
    public static void assumeAvailable() {
        Optional<String> missing = missing();
        Assumptions.assumeTrue(
                missing.isEmpty(), () -> "skipped: needs a Patroni cluster in network namespaces: " + missing.get());
    }

    /**
     * Starts the cluster and waits until it is healthy; {@code clientHosts} client namespaces are made for workers
     * ({@link #clientCommand(int)}). On failure everything made so far is removed again.
     */
    public static PatroniCluster start(Replication replication, int clientHosts) throws IOException {
        Path base = Files.createTempDirectory("fencepost-ha-");
        Network network = Network.create();
        PatroniCluster cluster = new PatroniCluster(replication, network, base);
        Runtime.getRuntime().addShutdownHook(cluster.cleanUpAtExit);
        try {
            Network.run("chown", "postgres:", base.toString());
            for (int i = 1; i <= NODES; i++) {
                String name = "n" + i;
                String address = network.addHost(name, 10 + i);
                Path directory = base.resolve(name);
                Files.createDirectories(directory);
                cluster.nodes.add(new Node(name, address, directory));
            }
            for (int c = 0; c < clientHosts; c++) {
                String name = "c" + c;
                cluster.clientAddresses.add(network.addHost(name, 21 + c));
                cluster.clients.add(name);
            }
            for (Node node : cluster.nodes) {
                Files.writeString(node.directory().resolve("patroni.yml"), cluster.patroniConfig(node));
            }
            Network.run("chown", "-R", "postgres:", base.toString());
            for (Node node : cluster.nodes) {
                cluster.startEtcd(node);
            }
            for (Node node : cluster.nodes) {
                cluster.startPatroni(node);
            }
            cluster.awaitHealthy(Duration.ofSeconds(120));
            return cluster;
        } catch (RuntimeException | IOException | Error e) {
            cluster.close();
            throw e;
        }
    }

    private String etcdHosts() {
        return nodes.stream().map(n -> n.address() + ":2379").collect(Collectors.joining(","));
    }

    /**
     * The node's Patroni configuration. The timing is tighter than Patroni's defaults so that a failover takes
     * seconds, not half a minute; the synchronous settings are the ones docs/high-availability.md explains. {@code
     * fsync} is off because every fault here kills processes, never the machine: what a process wrote survives in the
     * page cache, so durability is as real as the faults can test, and the two cores are spared the flushes. {@code
     * full_page_writes} stays on: {@code pg_rewind}, and a base backup from a promoted standby, need it.
     *
     * <p>{@code wal_sender_timeout} works around a race in Patroni 3.0. A primary cut off from etcd demotes itself in
     * the background, and PostgreSQL's shutdown waits until every WAL sender's standby has confirmed the last WAL,
     * which a standby behind the partition never does (for 60 s by default). A heartbeat loop that meets the DCS error
     * while that demotion still runs demotes a second time, from the main thread: two postmasters are started, the
     * second fails on the lock file, and Patroni loses track of the one that runs; it then rewinds, and on failure
     * deletes, the data directory under the running server, which is left streaming nothing. With a 2 s timeout the
     * shutdown ends before the next loop can meet it.
     *
     * <p>Patroni uses etcd's v2 API ({@code etcd:}), not v3 ({@code etcd3:}): Patroni 3.0.2's v3 client, when its
     * session has expired (a primary cut off for longer than {@code ttl}), takes a new one and writes the leader key
     * without checking who holds it. A former primary coming back from a partition thus overwrote the leader key of
     * the node promoted meanwhile, and both promoted themselves onto the same timeline: the cluster checker caught it
     * as a replica that could never stream again. The v2 client renews the key with a compare-and-swap on its own
     * name, which fails once another node holds it.
     */
    private String patroniConfig(Node node) {
        boolean synchronous = replication == Replication.SYNCHRONOUS;
        return """
                scope: %1$s
                name: %2$s
                log:
                  level: INFO
                restapi:
                  listen: %3$s:8008
                  connect_address: %3$s:8008
                etcd:
                  hosts: %4$s
                bootstrap:
                  dcs:
                    ttl: %5$d
                    loop_wait: 1
                    retry_timeout: 3
                    maximum_lag_on_failover: %6$d
                    synchronous_mode: %7$s
                    synchronous_mode_strict: %7$s
                    synchronous_node_count: 1
                    postgresql:
                      use_pg_rewind: true
                      use_slots: true
                      parameters:
                        max_connections: 300
                        wal_log_hints: 'on'
                        wal_keep_size: 256MB
                        shared_buffers: 32MB
                        fsync: 'off'
                        wal_sender_timeout: 2s
                  initdb:
                    - encoding: UTF8
                    - locale: C
                postgresql:
                  listen: %3$s:5432
                  connect_address: %3$s:5432
                  data_dir: %8$s
                  bin_dir: %9$s
                  pgpass: %10$s
                  remove_data_directory_on_rewind_failure: true
                  remove_data_directory_on_diverged_timelines: true
                  authentication:
                    superuser:
                      username: postgres
                    replication:
                      username: postgres
                    rewind:
                      username: postgres
                  parameters:
                    unix_socket_directories: '%11$s'
                  pg_hba:
                    - local all all trust
                    - host all all %12$s.0/24 trust
                    - host replication all %12$s.0/24 trust
                """.formatted(
                        SCOPE,
                        node.name(),
                        node.address(),
                        etcdHosts(),
                        TTL_SECONDS,
                        // Asynchronously, a replica that lags by up to this much may still be promoted: the
                        // contrast run stalls replication for a few seconds and must still get its failover.
                        synchronous ? 1_048_576 : 256 * 1_048_576,
                        synchronous,
                        node.data(),
                        LocalPostgres.binDirectory().orElseThrow(),
                        node.directory().resolve("pgpass"),
                        node.directory(),
                        Network.SUBNET);
    }

    private void startEtcd(Node node) throws IOException {
        String cluster = nodes.stream()
                .map(n -> "e" + n.name() + "=http://" + n.address() + ":2380")
                .collect(Collectors.joining(","));
        launch(
                node,
                "etcd.log",
                List.of(
                        ETCD,
                        "--name",
                        "e" + node.name(),
                        "--data-dir",
                        node.directory().resolve("etcd").toString(),
                        "--listen-client-urls",
                        "http://" + node.address() + ":2379",
                        "--advertise-client-urls",
                        "http://" + node.address() + ":2379",
                        "--listen-peer-urls",
                        "http://" + node.address() + ":2380",
                        "--initial-advertise-peer-urls",
                        "http://" + node.address() + ":2380",
                        "--initial-cluster",
                        cluster,
                        "--initial-cluster-state",
                        "new",
                        "--initial-cluster-token",
                        SCOPE,
                        // A member back from a partition, its term raised by lonely elections, must not depose the
                        // majority's leader: without pre-vote, healing a partition makes etcd unavailable for a
                        // moment, and Patroni demotes the primary it has just promoted.
                        "--pre-vote",
                        // Patroni talks to etcd through the v2 API: see patroniConfig for why not v3.
                        "--enable-v2=true"));
    }

    private void startPatroni(Node node) throws IOException {
        launch(
                node,
                "patroni.log",
                List.of(PATRONI, node.directory().resolve("patroni.yml").toString()));
    }

    /** Starts a program as the postgres OS user inside the node's namespace, its output appended to a log. */
    private void launch(Node node, String log, List<String> program) throws IOException {
        List<String> command = new ArrayList<>(Network.inside(node.name()));
        command.addAll(List.of("runuser", "-u", "postgres", "--", "env", "HOME=" + node.directory()));
        command.addAll(program);
        new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        node.directory().resolve(log).toFile()))
                .start();
    }

    /** The URL applications use: every node, whichever is primary. */
    public String url(String database) {
        return "jdbc:postgresql://"
                + nodes.stream().map(n -> n.address() + ":5432").collect(Collectors.joining(","))
                + "/" + database + "?user=postgres&targetServerType=primary&hostRecheckSeconds=1&connectTimeout=2";
    }

    public Replication replication() {
        return replication;
    }

    /** How many client hosts there are. */
    public int clientHosts() {
        return clients.size();
    }

    /** The command prefix that runs a program on client host {@code index}. */
    public List<String> clientCommand(int index) {
        return Network.inside(clients.get(index));
    }

    /** The name of the node that is primary now (the one holding the leader key), if any. */
    public Optional<String> primary() {
        return nodes.stream()
                .filter(n -> status(n, "/primary") == 200)
                .map(Node::name)
                .findFirst();
    }

    /** The address of node {@code name}. */
    public String address(String name) {
        return node(name).address();
    }

    private Node node(String name) {
        return nodes.stream()
                .filter(n -> n.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node " + name));
    }

    private Node primaryNode() {
        return node(primary().orElseThrow(() -> new IllegalStateException("no primary: " + describe())));
    }

    /**
     * Healthy: one primary that accepts writes through {@link #url(String)}, two running replicas, and (synchronous)
     * one of them the synchronous standby.
     */
    public boolean healthy() {
        long primaries =
                nodes.stream().filter(n -> status(n, "/primary") == 200).count();
        long replicas = nodes.stream().filter(n -> status(n, "/replica") == 200).count();
        long synchronous = nodes.stream().filter(n -> status(n, "/sync") == 200).count();
        if (primaries != 1 || replicas != NODES - 1) {
            return false;
        }
        if (replication == Replication.SYNCHRONOUS && (synchronous != 1 || !synchronousStandbyRecorded())) {
            return false;
        }
        // Patroni's view alone is not enough: a replica whose Patroni lost track of its postmaster still reports
        // "running" (see docs/high-availability.md). Both must stream from the primary, which must take writes.
        try (Connection connection = DriverManager.getConnection(url("postgres") + "&socketTimeout=5");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TEMPORARY TABLE health_probe (x int); INSERT INTO health_probe VALUES (1)");
            try (ResultSet rows =
                    statement.executeQuery("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")) {
                return rows.next() && rows.getInt(1) == NODES - 1;
            }
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * Whether etcd names a synchronous standby. {@code /sync} answers from PostgreSQL's view, which counts any standby
     * while Patroni has set {@code synchronous_standby_names} to {@code *} for a moment (after a standby dropped out);
     * but only the standby recorded in etcd may be promoted, and a primary lost while none is recorded is not failed
     * over at all (correctly: nobody is known to have every commit). Patroni's cluster view shows the recorded one.
     */
    private boolean synchronousStandbyRecorded() {
        for (Node node : nodes) {
            try {
                HttpRequest request = HttpRequest.newBuilder(URI.create(node.rest() + "/cluster"))
                        .timeout(Duration.ofSeconds(2))
                        .GET()
                        .build();
                HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return SYNC_STANDBY.matcher(response.body()).results().count() == 1;
                }
            } catch (IOException e) {
                // try the next node
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    /** Waits until {@link #healthy()}, failing with the members' states when that takes longer than {@code timeout}. */
    public void awaitHealthy(Duration timeout) {
        try {
            await().atMost(timeout).pollInterval(Duration.ofMillis(500)).until(this::healthy);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new IllegalStateException(
                    "the cluster did not become healthy within " + timeout + ": " + describe() + "\n" + logTails(), e);
        }
    }

    /** Each node's role as its Patroni reports it, for messages. */
    public String describe() {
        return nodes.stream().map(n -> n.name() + "=" + role(n)).collect(Collectors.joining(", "));
    }

    private String role(Node node) {
        if (status(node, "/primary") == 200) {
            return "primary";
        }
        if (status(node, "/sync") == 200) {
            return "sync-standby";
        }
        if (status(node, "/replica") == 200) {
            return "replica";
        }
        return status(node, "/health") == 200 ? "running" : "down";
    }

    private static int status(Node node, String path) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(node.rest() + path))
                    .timeout(Duration.ofSeconds(2))
                    .GET()
                    .build();
            return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Asks Patroni to hand the primary role to another node (the synchronous standby), and waits for it. */
    public String switchover() {
        Node leader = primaryNode();
        String body = "{\"leader\": \"" + leader.name() + "\"}";
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(leader.rest() + "/switchover"))
                    .timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build();
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(
                        "switchover refused (" + response.statusCode() + "): " + response.body());
            }
            return leader.name();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** {@code kill -9} of the primary's postmaster; returns the node. */
    public String killPrimaryPostmaster() {
        Node node = primaryNode();
        postmaster(node).ifPresent(pid -> Network.signal("KILL", List.of(pid)));
        return node.name();
    }

    /** {@code kill -9} of the primary's Patroni and every PostgreSQL process of it, as a machine dies. */
    public String crashPrimary() {
        Node node = primaryNode();
        Network.signal("KILL", processes(node, c -> !c.contains(ETCD)));
        return node.name();
    }

    /** {@code SIGSTOP} of every process of the primary's machine (etcd, Patroni, PostgreSQL): a paused VM. */
    public String freezePrimary() {
        Node node = primaryNode();
        Network.signal("STOP", Network.pids(node.name()));
        return node.name();
    }

    /** Cuts the primary off from the other two machines: its etcd member and it are the minority. */
    public String partitionPrimaryFromMajority() {
        Node primary = primaryNode();
        for (Node other : nodes) {
            if (other != primary) {
                network.cut(primary.name(), primary.address(), other.name(), other.address());
            }
        }
        return primary.name();
    }

    /** Cuts client host {@code index} off from the primary (only: it still reaches the other machines). */
    public String partitionClientFromPrimary(int index) {
        Node primary = primaryNode();
        network.cut(clients.get(index), clientAddresses.get(index), primary.name(), primary.address());
        return primary.name();
    }

    /**
     * Stalls replication from the primary: its WAL senders are stopped, so the standbys receive nothing more while
     * the primary goes on (asynchronously: confirming commits that exist on it alone).
     */
    public String stallReplication() {
        Node node = primaryNode();
        List<Long> senders = processes(node, c -> c.contains("walsender"));
        if (senders.isEmpty()) {
            throw new IllegalStateException("no WAL senders on " + node.name() + ": " + describe());
        }
        Network.signal("STOP", senders);
        return node.name();
    }

    /** Undoes every fault: links restored, stopped processes continued, a dead Patroni started again. */
    public void heal() throws IOException {
        network.heal();
        for (Node node : nodes) {
            Network.signal("CONT", Network.pids(node.name()));
        }
        for (Node node : nodes) {
            if (processes(node, c -> c.contains(PATRONI)).isEmpty()) {
                startPatroni(node);
            }
        }
    }

    private static Optional<Long> postmaster(Node node) {
        try {
            List<String> lines = Files.readAllLines(node.data().resolve("postmaster.pid"));
            return lines.isEmpty()
                    ? Optional.empty()
                    : Optional.of(Long.parseLong(lines.get(0).strip()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static List<Long> processes(Node node, java.util.function.Predicate<String> commandLine) {
        return Network.pids(node.name()).stream()
                .filter(pid -> commandLine.test(Network.commandLine(pid)))
                .toList();
    }

    /** The last lines of every node's Patroni log, for failure messages. */
    public String logTails() {
        StringBuilder out = new StringBuilder();
        for (Node node : nodes) {
            try {
                List<String> lines = Files.readAllLines(node.directory().resolve("patroni.log"));
                out.append("--- patroni log of ")
                        .append(node.name())
                        .append(" ---\n")
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size())))
                        .append('\n');
            } catch (IOException e) {
                out.append("(no patroni log of ").append(node.name()).append(")\n");
            }
        }
        return out.toString();
    }

    /** Copies the nodes' logs to {@code directory}, to read after the run. */
    public void keepLogs(Path directory) {
        for (Node node : nodes) {
            for (String log : List.of("patroni.log", "etcd.log")) {
                Path source = node.directory().resolve(log);
                if (Files.exists(source)) {
                    try {
                        Files.createDirectories(directory);
                        Files.copy(
                                source,
                                directory.resolve(node.name() + "-" + log),
                                StandardCopyOption.REPLACE_EXISTING);
                    } catch (IOException e) {
                        // logs are a convenience
                    }
                }
            }
        }
    }

    /** Stops everything (every process in the namespaces), removes the network and the files. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        removeEverything();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanUpAtExit);
        } catch (IllegalStateException e) {
            // the JVM is exiting: the hook runs, or ran, anyway
        }
    }

    private synchronized void removeEverything() {
        if (closed) {
            return;
        }
        closed = true;
        for (Node node : nodes) {
            Network.signal("CONT", Network.pids(node.name()));
        }
        network.close();
        LocalPostgres.deleteRecursively(base);
    }

    @Override
    public String toString() {
        return "PatroniCluster[" + replication + ", " + describe() + "]";
    }
}
