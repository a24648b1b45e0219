package io.fencepost.lock.reliability.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A PostgreSQL cluster of the test's own, made with the machine's {@code initdb} and run with {@code pg_ctl} in a
 * temporary directory on a free loopback port: for tests that crash, restart or fail over a server, which must
 * never happen to the shared one. The binaries refuse to run as root, so as root every command runs as the
 * {@code postgres} OS user (through {@code runuser}) in a directory owned by it.
 *
 * <p>Tests call {@link #assumeAvailable()} first: without the binaries they are skipped, saying why.
 */
public final class LocalPostgres implements AutoCloseable {

    /** Overrides where the binaries are looked for (a {@code bin} directory). */
    public static final String BIN_VARIABLE = "FENCEPOST_PG_BIN";

    private static final String OS_USER = "postgres";

    private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

    private final String name;

    private final Path base;

    private final Path data;

    private final int port;

    private boolean running;

    private LocalPostgres(String name, Path base, int port) {
        this.name = name;
        this.base = base;
        this.data = base.resolve("data");
        this.port = port;
    }

    /** Skips the calling test, saying what is missing, unless clusters can be made here. */
    public static void assumeAvailable() {
        Optional<String> missing = missing();
        Assumptions.assumeTrue(
                missing.isEmpty(),
                () -> "skipped: needs the local PostgreSQL binaries to start a server of its own: " + missing.get());
    }

    /** What is missing to make clusters here, if anything. */
    public static Optional<String> missing() {
        Optional<Path> bin = bin();
        if (bin.isEmpty()) {
            return Optional.of("no initdb, pg_ctl and pg_basebackup in /usr/lib/postgresql/*/bin (or " + BIN_VARIABLE
                    + "); install the postgresql package");
        }
        if (ROOT) {
            if (!Files.isExecutable(Path.of("/usr/sbin/runuser")) && !Files.isExecutable(Path.of("/sbin/runuser"))) {
                return Optional.of("running as root, but runuser is missing (PostgreSQL refuses to run as root)");
            }
            try {
                Process id = new ProcessBuilder("id", "-u", OS_USER)
                        .redirectErrorStream(true)
                        .start();
                if (!id.waitFor(10, TimeUnit.SECONDS) || id.exitValue() != 0) {
                    return Optional.of("running as root, but there is no '" + OS_USER + "' OS user to run PostgreSQL");
                }
            } catch (IOException e) {
                return Optional.of("could not look up the '" + OS_USER + "' OS user: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.of("interrupted");
            }
        }
        return Optional.empty();
    }

    /** The {@code bin} directory of the binaries clusters are made with, if there is one. */
    public static Optional<Path> binDirectory() {
        return bin();
    }

    private static Optional<Path> bin() {
        String configured = System.getenv(BIN_VARIABLE);
        if (configured != null && !configured.isBlank()) {
            return Optional.of(Path.of(configured)).filter(LocalPostgres::complete);
        }
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(LocalPostgres::complete)
                    .max(Comparator.comparing(p -> version(p.getParent())));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static int version(Path directory) {
        try {
            return Integer.parseInt(directory.getFileName().toString().replaceAll("\\D.*", ""));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static boolean complete(Path bin) {
        return Stream.of("initdb", "pg_ctl", "pg_basebackup", "postgres")
                .allMatch(tool -> Files.isExecutable(bin.resolve(tool)));
    }

    /**
     * A new cluster, initialized but not started, with {@code settings} added to its {@code postgresql.conf}.
     * Durability of commits is real (fsync stays on), since crash tests depend on it.
     */
    public static LocalPostgres init(String name, Map<String, String> settings) {
        return create(name, cluster -> {
            cluster.run(List.of(
                    tool("initdb"),
                    "-D",
                    cluster.data.toString(),
                    "-A",
                    "trust",
                    "-U",
                    OS_USER,
                    "-E",
                    "UTF8",
                    "--locale=C",
                    "--no-sync"));
            cluster.configure(settings);
        });
    }

    /**
     * A standby of this (running) cluster made with {@code pg_basebackup}: it streams WAL from this cluster,
     * or from {@code viaPort} (say a proxy in front of this cluster), under the walreceiver name {@code name}.
     */
    public LocalPostgres baseBackup(String standbyName, int viaPort, Map<String, String> settings) {
        return create(standbyName, standby -> {
            standby.run(List.of(
                    tool("pg_basebackup"),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    Integer.toString(port),
                    "-U",
                    OS_USER,
                    "-D",
                    standby.data.toString(),
                    "-X",
                    "stream",
                    "--checkpoint=fast",
                    "--no-sync"));
            // Not -R: it writes primary_conninfo to postgresql.auto.conf, which would override ours.
            standby.run(List.of("touch", standby.data.resolve("standby.signal").toString()));
            Map<String, String> all = new LinkedHashMap<>();
            all.put(
                    "primary_conninfo",
                    "'host=127.0.0.1 port=" + viaPort + " user=" + OS_USER + " application_name=" + standbyName + "'");
            all.putAll(settings);
            standby.configure(all);
        });
    }

    /**
     * A new cluster {@code name} in a directory of its own on a free port, its data directory made by {@code
     * populate}; if that fails, the directory is deleted again.
     */
    private static LocalPostgres create(String name, Consumer<LocalPostgres> populate) {
        LocalPostgres cluster = new LocalPostgres(name, newBase(name), freePort());
        try {
            populate.accept(cluster);
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private void configure(Map<String, String> settings) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("port", Integer.toString(port));
        all.put("listen_addresses", "'127.0.0.1'");
        all.put("unix_socket_directories", "'" + base + "'");
        all.put("cluster_name", "'" + name + "'");
        all.put("max_connections", "200");
        all.put("shared_buffers", "32MB");
        all.put("logging_collector", "off");
        all.putAll(settings);
        StringBuilder text = new StringBuilder("\n# fencepost reliability tests\n");
        all.forEach((k, v) -> text.append(k).append(" = ").append(v).append('\n'));
        try {
            Files.writeString(data.resolve("postgresql.conf"), text, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts the server and waits until it accepts connections (a standby: until it is consistent). */
    public LocalPostgres start() {
        run(List.of(
                tool("pg_ctl"),
                "-D",
                data.toString(),
                "-l",
                base.resolve("server.log").toString(),
                "-w",
                "-t",
                "60",
                "start"));
        running = true;
        return this;
    }

    /** Stops the server with {@code -m immediate}: a crash, recovered from the WAL on the next start. */
    public void crash() {
        if (running) {
            run(List.of(tool("pg_ctl"), "-D", data.toString(), "-m", "immediate", "-w", "stop"));
            running = false;
        }
    }

    /** A clean, fast shutdown. */
    public void stop() {
        if (running) {
            run(List.of(tool("pg_ctl"), "-D", data.toString(), "-m", "fast", "-w", "stop"));
            running = false;
        }
    }

    /** Promotes a standby to primary and waits for it. */
    public void promote() {
        run(List.of(tool("pg_ctl"), "-D", data.toString(), "-w", "-t", "60", "promote"));
    }

    public int port() {
        return port;
    }

    public String name() {
        return name;
    }

    public boolean isRunning() {
        return running;
    }

    /** A JDBC URL of {@code database} on this server, as the superuser. */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=" + OS_USER;
    }

    /** Runs SQL text on the {@code postgres} database as the superuser. */
    public void execute(String sql) {
        try (Connection connection = DriverManager.getConnection(jdbcUrl("postgres"));
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("[" + sql + "] failed on " + name + ": " + e.getMessage(), e);
        }
    }

    /** The last lines of the server log, for failure messages. */
    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(base.resolve("server.log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no server log: " + e + ")";
        }
    }

    /** Stops the server if it runs (immediately: nothing in it is kept) and deletes its directory. */
    @Override
    public void close() {
        try {
            crash();
        } catch (RuntimeException e) {
            System.err.println("could not stop " + name + ": " + e.getMessage());
        } finally {
            deleteRecursively(base);
        }
    }

    private static Path newBase(String name) {
        try {
            Path base = Files.createTempDirectory("fencepost-" + name + "-");
            if (ROOT) {
                exec(List.of("chown", "-R", OS_USER + ":", base.toString()), base, false);
            }
            return base;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String tool(String name) {
        return bin().orElseThrow(() -> new IllegalStateException(missing().orElse("no PostgreSQL binaries")))
                .resolve(name)
                .toString();
    }

    private void run(List<String> command) {
        List<String> full = new ArrayList<>();
        if (ROOT) {
            full.addAll(Arrays.asList("runuser", "-u", OS_USER, "--"));
        }
        full.addAll(command);
        try {
            exec(full, base, true);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + "\n--- server log of " + name + " ---\n" + logTail(), e);
        }
    }

    private static void exec(List<String> command, Path directory, boolean asPostgres) {
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.directory(directory.toFile());
            if (asPostgres) {
                builder.environment().put("HOME", directory.toString());
                builder.environment().put("PGPASSFILE", "/dev/null");
            }
            Process process = builder.start();
            process.getOutputStream().close();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("timed out: " + String.join(" ", command));
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("failed (exit " + process.exitValue() + "): "
                        + String.join(" ", command) + "\n" + new String(output, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + String.join(" ", command), e);
        }
    }

    /** A port on loopback that was free a moment ago. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes a directory and everything in it, best effort: what cannot be deleted is left behind. */
    public static void deleteRecursively(Path path) {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // best effort: a temp directory left behind is not worth failing a test over
                }
            });
        } catch (IOException e) {
            // best effort, as above
        }
    }

    @Override
    public String toString() {
        return "LocalPostgres[" + name + " on port " + port + ", " + data + "]";
    }
}
