package io.fencepost.lock.benchmarks;

import io.fencepost.lock.benchmarks.clients.Library;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What one run measures and for how long. The defaults are the full run (about fifteen minutes on two cores);
 * {@code --quick} is a smoke run of every code path in about two minutes whose figures mean little.
 */
public record Settings(
        boolean quick,
        int rounds,
        Duration cycleWindow,
        Duration losingWindow,
        Duration contendedWindow,
        List<Integer> threadCounts,
        List<Integer> nodeCounts,
        Duration nodesWindow,
        List<Integer> keyThreadCounts,
        Duration keysWindow,
        Duration criticalSection,
        int leases,
        Duration renewalLeaseTime,
        Duration annotationWindow,
        int countedCycles,
        Duration failoverLeaseTime,
        int handOvers,
        int kills,
        String pgHost,
        int pgPort,
        String pgUser,
        String database,
        String redisHost,
        int redisPort,
        Set<Scenario> scenarios,
        Set<Library> libraries,
        Path output,
        String note,
        String command) {

    /** The scenarios, in the order they run and appear in the report. */
    public enum Scenario {
        UNCONTENDED,
        LOSING,
        CONTENDED,
        NODES,
        DISTINCT_KEYS,
        RENEWAL,
        ANNOTATION,
        COUNTING,
        SHARED,
        PERMITS,
        EXTEND,
        FAILOVER,
        FENCED_TRANSACTION,
        SETS,
        HAND_OFF_PHASES;

        static Scenario parse(String name) {
            return valueOf(name.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        }
    }

    public static final String USAGE = """
            Usage: lock-benchmarks/run.sh [options]   (or java -jar lock-benchmarks/target/lock-benchmarks.jar)
              --quick                 smoke run: every scenario, short windows, 2 rounds; writes
                                      lock-benchmarks/target/benchmarks-quick.md unless --output is given
              --rounds=N              measured rounds after the warm-up round (default 5; the uncontended and
                                      losing scenarios run twice as many rounds of their shorter windows)
              --cycle-seconds=S       window per library and round, uncontended cycles (default 0.6)
              --losing-seconds=S      window per library and round, losing tryAcquire (default 0.5)
              --contended-seconds=S   window per library and round, contended hand-off (default 2)
              --threads=8,32          total threads on one key, split over the two JVMs
              --nodes=8,32            nodes (one client instance with one thread each) on one key in the nodes
                                      scenario, split over the two JVMs
              --nodes-seconds=S       window per library and round there (default 3)
              --key-threads=1,2,4     threads of one client, each on its own key, in the distinct-keys scenario
                                      (default 1,2,4,8,16,32,64)
              --keys-seconds=S        window per library and round there (default 1)
              --critical-section-us=N busy work inside each contended critical section (default 0)
              --leases=N              held leases in the renewal scenario (default 10000)
              --renewal-lease-seconds=S  lease time there; renewal is due every third of it (default 6)
              --failover-lease-seconds=S  leader lease (Spring Integration: time to live) in the failover
                                      scenario (default 2)
              --hand-overs=N          measured yields and closes per library there (default 10); --kills=N
                                      leader processes killed per library (default 5)
              --scenarios=a,b         any of uncontended, losing, contended, nodes, distinct-keys, renewal,
                                      annotation, counting, shared, permits, extend, failover,
                                      fenced-transaction, sets (several keys at once), hand-off-phases
                                      (one hand-off between two nodes taken apart). A run of only
                                      some scenarios merges their sections into the existing report and
                                      leaves the others as they are (and the chart, unless uncontended and
                                      contended both ran)
              --libraries=a,b         any of select-1, raw, raw-async, raw-insert, fencepost, fencepost-fair,
                                      fencepost-store, shedlock, spring-integration, redisson, advisory,
                                      fencepost-shared, fencepost-permits, redisson-read,
                                      redisson-expirable-semaphore, redisson-semaphore, durable-floor,
                                      durable-floor-keyed, durable-floor-ending, redisson-fsync (the
                                      durable floors in the nodes and hand-off-phases scenarios only,
                                      redisson-fsync in the nodes scenario only; it needs redis-server on
                                      the PATH and is skipped without it)
              --pg=HOST:PORT  --pg-user=NAME  --database=NAME   (default 127.0.0.1:5432, postgres, fencepost_bench)
              --redis=HOST:PORT       (default 127.0.0.1:6379)
              --output=FILE           the Markdown report; the chart is written beside it (.svg)
              --note=TEXT             a remark on the conditions of this run, printed in the report
            """;

    public static Settings parse(String[] args) {
        boolean quick = Arrays.asList(args).contains("--quick");
        int rounds = quick ? 2 : 5;
        double cycle = quick ? 0.3 : 0.6;
        double losing = quick ? 0.2 : 0.5;
        double contended = quick ? 0.6 : 2.0;
        List<Integer> threads = List.of(8, 32);
        List<Integer> nodes = List.of(8, 32);
        double nodesWindow = quick ? 0.6 : 3.0;
        List<Integer> keyThreads = List.of(1, 2, 4, 8, 16, 32, 64);
        double keysWindow = quick ? 0.3 : 1.0;
        long csMicros = 0;
        int leases = quick ? 1_000 : 10_000;
        double renewalLease = quick ? 3 : 6;
        double annotation = quick ? 0.2 : 1.0;
        int counted = quick ? 100 : 500;
        double failoverLease = 2;
        int handOvers = quick ? 3 : 10;
        int kills = quick ? 2 : 5;
        String pg = "127.0.0.1:5432";
        String pgUser = "postgres";
        String database = "fencepost_bench";
        String redis = "127.0.0.1:6379";
        Set<Scenario> scenarios = EnumSet.allOf(Scenario.class);
        Set<Library> libraries = EnumSet.allOf(Library.class);
        Path output = null;
        String note = "";
        for (String arg : args) {
            if (arg.equals("--quick")) {
                continue;
            }
            if (arg.equals("--help") || arg.equals("-h")) {
                throw new IllegalArgumentException("");
            }
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("unknown argument '" + arg + "'");
            }
            String name = arg.substring(2, eq);
            String value = arg.substring(eq + 1);
            switch (name) {
                case "rounds" -> rounds = positiveInt(name, value);
                case "cycle-seconds" -> cycle = positiveDouble(name, value);
                case "losing-seconds" -> losing = positiveDouble(name, value);
                case "contended-seconds" -> contended = positiveDouble(name, value);
                case "threads" ->
                    threads = Arrays.stream(value.split(","))
                            .map(t -> positiveInt(name, t.trim()))
                            .toList();
                case "nodes" -> nodes = counts(name, value);
                case "nodes-seconds" -> nodesWindow = positiveDouble(name, value);
                case "key-threads" -> keyThreads = counts(name, value);
                case "keys-seconds" -> keysWindow = positiveDouble(name, value);
                case "critical-section-us" -> csMicros = Long.parseLong(value);
                case "leases" -> leases = positiveInt(name, value);
                case "renewal-lease-seconds" -> renewalLease = positiveDouble(name, value);
                case "annotation-seconds" -> annotation = positiveDouble(name, value);
                case "counted-cycles" -> counted = positiveInt(name, value);
                case "failover-lease-seconds" -> failoverLease = positiveDouble(name, value);
                case "hand-overs" -> handOvers = positiveInt(name, value);
                case "kills" -> kills = positiveInt(name, value);
                case "pg" -> pg = value;
                case "pg-user" -> pgUser = value;
                case "database" -> database = identifier(value);
                case "redis" -> redis = value;
                case "scenarios" ->
                    scenarios = Arrays.stream(value.split(","))
                            .map(Scenario::parse)
                            .collect(Collectors.toCollection(() -> EnumSet.noneOf(Scenario.class)));
                case "libraries" ->
                    libraries = Arrays.stream(value.split(","))
                            .map(Library::byId)
                            .collect(Collectors.toCollection(() -> EnumSet.noneOf(Library.class)));
                case "output" -> output = Path.of(value);
                case "note" -> note = value.trim();
                default -> throw new IllegalArgumentException("unknown option '--" + name + "'");
            }
        }
        if (threads.stream().anyMatch(t -> t < 2 || t % 2 != 0)) {
            throw new IllegalArgumentException(
                    "--threads takes even counts of at least 2 (half run in each JVM), was " + threads);
        }
        if (nodes.stream().anyMatch(n -> n < 2 || n % 2 != 0)) {
            throw new IllegalArgumentException(
                    "--nodes takes even counts of at least 2 (half run in each JVM), was " + nodes);
        }
        Path root = repositoryRoot();
        if (output == null) {
            output = quick
                    ? root.resolve("lock-benchmarks/target/benchmarks-quick.md")
                    : root.resolve("docs/benchmarks.md");
        }
        return new Settings(
                quick,
                rounds,
                seconds(cycle),
                seconds(losing),
                seconds(contended),
                List.copyOf(new LinkedHashSet<>(threads)),
                List.copyOf(new LinkedHashSet<>(nodes)),
                seconds(nodesWindow),
                List.copyOf(new LinkedHashSet<>(keyThreads)),
                seconds(keysWindow),
                Duration.ofNanos(csMicros * 1_000),
                leases,
                seconds(renewalLease),
                seconds(annotation),
                counted,
                seconds(failoverLease),
                handOvers,
                kills,
                host(pg),
                port(pg, 5432),
                pgUser,
                database,
                host(redis),
                port(redis, 6379),
                scenarios,
                libraries,
                output.toAbsolutePath().normalize(),
                note,
                // The note is printed on its own; it changes nothing that is measured.
                Arrays.stream(args).filter(a -> !a.startsWith("--note=")).collect(Collectors.joining(" ")));
    }

    /**
     * Rounds of the scenarios whose windows are short (uncontended, losing): twice as many, each half as long,
     * so that a burst of load from elsewhere on the machine spoils a smaller share of the rounds.
     */
    public int shortRounds() {
        return 2 * rounds;
    }

    /** The chart written next to the report. */
    public Path chart() {
        String name = output.getFileName().toString().replaceFirst("\\.md$", "");
        return output.resolveSibling(name + ".svg");
    }

    public String jdbcUrl(String db) {
        // No TLS or GSS negotiation: loopback only, and the counting proxy reads the protocol in clear.
        return "jdbc:postgresql://" + pgHost + ":" + pgPort + "/" + db + "?sslmode=disable&gssEncMode=disable";
    }

    public boolean runs(Scenario scenario) {
        return scenarios.contains(scenario);
    }

    /** Whether this run measures only some of the scenarios (and so merges its sections into the report). */
    public boolean partial() {
        return !scenarios.containsAll(EnumSet.allOf(Scenario.class));
    }

    public boolean uses(Library library) {
        return libraries.contains(library);
    }

    /** The folder holding the root pom and lock-benchmarks, found upwards from the working directory. */
    static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("lock-benchmarks/pom.xml"))
                    && Files.isRegularFile(d.resolve("pom.xml"))) {
                return d;
            }
        }
        return dir;
    }

    private static Duration seconds(double s) {
        return Duration.ofNanos((long) (s * 1e9));
    }

    private static int positiveInt(String name, String value) {
        int n = Integer.parseInt(value);
        if (n <= 0) {
            throw new IllegalArgumentException("--" + name + " must be positive, was " + value);
        }
        return n;
    }

    private static List<Integer> counts(String name, String value) {
        return Arrays.stream(value.split(","))
                .map(t -> positiveInt(name, t.trim()))
                .toList();
    }

    private static double positiveDouble(String name, String value) {
        double d = Double.parseDouble(value);
        if (!(d > 0)) {
            throw new IllegalArgumentException("--" + name + " must be positive, was " + value);
        }
        return d;
    }

    private static String identifier(String value) {
        if (!value.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("--database must be a lower-case identifier, was '" + value + "'");
        }
        return value;
    }

    private static String host(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return colon < 0 ? hostPort : hostPort.substring(0, colon);
    }

    private static int port(String hostPort, int defaultPort) {
        int colon = hostPort.lastIndexOf(':');
        return colon < 0 ? defaultPort : Integer.parseInt(hostPort.substring(colon + 1));
    }
}
