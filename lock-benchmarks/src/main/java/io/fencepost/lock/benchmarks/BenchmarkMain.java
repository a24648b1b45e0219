package io.fencepost.lock.benchmarks;

import io.fencepost.lock.benchmarks.Settings.Scenario;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.report.Report;
import io.fencepost.lock.benchmarks.report.ReportMerge;
import io.fencepost.lock.benchmarks.scenarios.AnnotationScenario;
import io.fencepost.lock.benchmarks.scenarios.ContendedScenario;
import io.fencepost.lock.benchmarks.scenarios.CountingScenario;
import io.fencepost.lock.benchmarks.scenarios.DistinctKeysScenario;
import io.fencepost.lock.benchmarks.scenarios.ExtendScenario;
import io.fencepost.lock.benchmarks.scenarios.FailoverScenario;
import io.fencepost.lock.benchmarks.scenarios.FencedTransactionScenario;
import io.fencepost.lock.benchmarks.scenarios.HandOffPhasesScenario;
import io.fencepost.lock.benchmarks.scenarios.LosingScenario;
import io.fencepost.lock.benchmarks.scenarios.ModeScenario;
import io.fencepost.lock.benchmarks.scenarios.NodesScenario;
import io.fencepost.lock.benchmarks.scenarios.RenewalScenario;
import io.fencepost.lock.benchmarks.scenarios.SetsScenario;
import io.fencepost.lock.benchmarks.scenarios.UncontendedScenario;
import io.fencepost.lock.benchmarks.wire.RedisInfo;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Map;

/**
 * Runs the benchmarks against the local PostgreSQL and Redis and writes the report and its chart. See
 * {@link Settings#USAGE} for the options; {@code lock-benchmarks/run.sh} builds and runs it.
 */
public final class BenchmarkMain {

    private BenchmarkMain() {}

    public static void main(String[] args) throws Exception {
        Settings settings;
        try {
            settings = Settings.parse(args);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println(e.getMessage());
            }
            System.err.print(Settings.USAGE);
            System.exit(e.getMessage().isEmpty() ? 0 : 2);
            return;
        }
        Results results = new Results();
        results.startedAt = ZonedDateTime.now().truncatedTo(ChronoUnit.SECONDS);
        long started = System.nanoTime();
        try (BenchDatabase database = BenchDatabase.create(settings);
                Harness harness = new Harness(settings, database)) {
            harness.log("database " + settings.database() + " created; report goes to " + settings.output());
            describeEnvironment(settings, database, results);
            describeFsyncRedis(settings, harness, results);
            results.environment.put("load average at start", loadAverage());
            // Counting first: it reads the server's per-database statistics, which the other scenarios' idle
            // connections could still be reporting into for a few seconds after they ran.
            if (settings.runs(Scenario.COUNTING)) {
                results.counting = new CountingScenario(harness).run();
            }
            if (settings.runs(Scenario.UNCONTENDED)) {
                UncontendedScenario uncontended = new UncontendedScenario(harness);
                results.sameKey = uncontended.sameKey();
                results.distinctKeys = uncontended.distinctKeys();
            }
            if (settings.runs(Scenario.LOSING)) {
                results.losing = new LosingScenario(harness).run();
            }
            if (settings.runs(Scenario.CONTENDED)) {
                ContendedScenario contended = new ContendedScenario(harness);
                results.contended = contended.run();
                results.clockCheckNanos = contended.clockCheckNanos();
            }
            if (settings.runs(Scenario.NODES)) {
                NodesScenario.Outcome nodes = new NodesScenario(harness).run();
                results.nodes = nodes.byNodes();
                results.nodesSkipped = nodes.skipped();
            }
            if (settings.runs(Scenario.DISTINCT_KEYS)) {
                DistinctKeysScenario.Outcome keys = new DistinctKeysScenario(harness).run();
                results.keyScaling = keys.byThreads();
                results.keyPairs = keys.paired();
            }
            if (settings.runs(Scenario.RENEWAL)) {
                results.renewal = new RenewalScenario(harness).run();
            }
            if (settings.runs(Scenario.ANNOTATION)) {
                results.annotation = new AnnotationScenario(harness).run();
            }
            if (settings.runs(Scenario.SHARED)) {
                ModeScenario modes = new ModeScenario(harness);
                results.sharedAlone = modes.sharedAlone();
                results.sharedReaders = modes.sharedReaders();
            }
            if (settings.runs(Scenario.PERMITS)) {
                ModeScenario modes = new ModeScenario(harness);
                results.permitsAlone = modes.permitsAlone();
                results.permitsThreads = modes.permitsThreads();
            }
            if (settings.runs(Scenario.EXTEND)) {
                results.extend = new ExtendScenario(harness).run();
            }
            if (settings.runs(Scenario.FAILOVER)) {
                results.failover = new FailoverScenario(harness).run();
            }
            if (settings.runs(Scenario.FENCED_TRANSACTION)) {
                results.fencedTransaction = new FencedTransactionScenario(harness).run();
            }
            if (settings.runs(Scenario.SETS)) {
                results.sets = new SetsScenario(harness).run();
            }
            if (settings.runs(Scenario.HAND_OFF_PHASES)) {
                results.handOffPhases = new HandOffPhasesScenario(harness).run();
            }
            results.environment.put("load average at end", loadAverage());
            results.duration = Duration.ofNanos(System.nanoTime() - started).truncatedTo(ChronoUnit.SECONDS);
            harness.log("measurements done in " + results.duration.toSeconds() + " s; writing the report");
        }
        Report report = new Report(settings, results);
        Files.createDirectories(settings.output().getParent());
        if (settings.partial() && Files.isRegularFile(settings.output())) {
            String merged = ReportMerge.merge(Files.readString(settings.output()), report.markdown(), report.stamp());
            Files.writeString(settings.output(), merged);
            if (settings.runs(Scenario.UNCONTENDED) && settings.runs(Scenario.CONTENDED)) {
                Files.writeString(settings.chart(), report.chart());
                System.err.println(
                        "merged this run's sections into " + settings.output() + "; wrote " + settings.chart());
            } else {
                System.err.println("merged this run's sections into " + settings.output() + "; the chart (uncontended"
                        + " and contended figures) is left as it was");
            }
        } else {
            Files.writeString(settings.chart(), report.chart());
            Files.writeString(settings.output(), report.markdown());
            System.err.println("wrote " + settings.output() + " and " + settings.chart());
        }
        // Redisson's and Hikari's threads are daemons, but do not wait for any that is not.
        System.exit(0);
    }

    private static void describeEnvironment(Settings settings, BenchDatabase database, Results results)
            throws Exception {
        Map<String, String> env = results.environment;
        env.put("CPU", cpuModel() + " — " + Runtime.getRuntime().availableProcessors() + " available to the JVM");
        env.put(
                "OS",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " ("
                        + System.getProperty("os.arch") + ")");
        env.put(
                "Java",
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + ", "
                        + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        Map<String, String> pg = database.serverFacts();
        env.put(
                "PostgreSQL",
                pg.remove("server_version") + " on " + settings.pgHost() + ":" + settings.pgPort() + " (loopback TCP)");
        StringBuilder pgSettings = new StringBuilder();
        pg.forEach((name, value) -> pgSettings
                .append(pgSettings.length() == 0 ? "" : ", ")
                .append(name)
                .append("=")
                .append(value));
        env.put("PostgreSQL settings", pgSettings.toString());
        try {
            Map<String, String> redis = new RedisInfo(settings.redisHost(), settings.redisPort()).facts();
            env.put(
                    "Redis",
                    redis.getOrDefault("redis_version", "?") + " on " + settings.redisHost() + ":"
                            + settings.redisPort() + " (appendonly="
                            + ("1".equals(redis.get("aof_enabled")) ? "yes" : "no")
                            + "; nothing is fsynced per command in any case)");
        } catch (IOException e) {
            env.put("Redis", "unreachable: " + e.getMessage());
        }
        env.put(
                "Connection pool",
                "HikariCP " + io.fencepost.lock.benchmarks.clients.Versions.of(com.zaxxer.hikari.HikariDataSource.class)
                        + ", one per JVM shared by the JDBC libraries, at most " + Pools.MAX_SIZE
                        + " connections; pgjdbc "
                        + io.fencepost.lock.benchmarks.clients.Versions.of(org.postgresql.Driver.class));
        for (Library library : Library.values()) {
            if (settings.uses(library)) {
                results.versions.put(
                        library.label(), library.isAvailable() ? library.version() : library.unavailable());
            }
        }
    }

    private static void describeFsyncRedis(Settings settings, Harness harness, Results results) {
        int port = harness.context().fsyncRedisPort();
        if (port == 0) {
            return;
        }
        String where = settings.redisHost() + ":" + port;
        try {
            Map<String, String> redis = new RedisInfo(settings.redisHost(), port).facts();
            results.environment.put(
                    "Redis, fsynced",
                    redis.getOrDefault("redis_version", "?") + " on " + where + ", started by the harness for "
                            + Library.REDISSON_FSYNC.id() + " (appendonly yes, appendfsync always, no snapshots)");
        } catch (IOException e) {
            results.environment.put("Redis, fsynced", where + " unreachable: " + e.getMessage());
        }
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(line -> line.startsWith("model name"))
                    .map(line -> line.substring(line.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse(System.getProperty("os.arch"));
        } catch (IOException e) {
            return System.getProperty("os.arch");
        }
    }

    private static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return parts[0] + " " + parts[1] + " " + parts[2] + " (1, 5, 15 min)";
        } catch (IOException e) {
            return "?";
        }
    }
}
