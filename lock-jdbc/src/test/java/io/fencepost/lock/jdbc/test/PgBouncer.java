package io.fencepost.lock.jdbc.test;

import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A PgBouncer process, for one test class, in transaction or session pooling mode, in front of a test database of its
 * own ({@link #database()}), which it creates first and drops last:
 * {@code @RegisterExtension static PgBouncer bouncer = new PgBouncer("transaction");}. Where the {@code pgbouncer}
 * executable is missing (CI installs the Debian package {@code pgbouncer}), the tests are skipped.
 */
public final class PgBouncer implements BeforeAllCallback, AfterAllCallback {

    private static final Pattern HOST_PORT = Pattern.compile("jdbc:postgresql://([^:/?]+)(?::(\\d+))?/([^?]+).*");

    private static final List<Path> EXECUTABLES =
            List.of(Path.of("/usr/sbin/pgbouncer"), Path.of("/usr/bin/pgbouncer"), Path.of("/usr/local/bin/pgbouncer"));

    private final PostgresTestDatabase db = new PostgresTestDatabase();

    private final String poolMode;

    private final List<HikariDataSource> pools = new ArrayList<>();

    private Running running;

    /** A PgBouncer with {@code pool_mode = poolMode} ({@code transaction} or {@code session}). */
    public PgBouncer(String poolMode) {
        this.poolMode = poolMode;
    }

    /** The test database behind PgBouncer, to reach directly. */
    public PostgresTestDatabase database() {
        return db;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Assumptions.assumeTrue(executable().isPresent(), MISSING);
        db.start();
        Matcher url = HOST_PORT.matcher(db.jdbcUrl());
        if (!url.matches()) {
            throw new IllegalStateException("cannot read host and port from " + db.jdbcUrl());
        }
        String host = url.group(1).equals("localhost") ? "127.0.0.1" : url.group(1);
        running = Running.start(host, url.group(2) == null ? 5432 : Integer.parseInt(url.group(2)), poolMode);
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        try {
            pools.forEach(HikariDataSource::close);
            pools.clear();
            if (running != null) {
                running.close();
            }
        } finally {
            db.close();
        }
    }

    /** Why tests through PgBouncer skip on this machine. */
    public static final String MISSING = "pgbouncer is not installed (no " + EXECUTABLES
            + "): install the Debian package pgbouncer, as .ci/run does, to run the tests through it";

    /** The PgBouncer executable, where it is installed. */
    public static Optional<Path> executable() {
        return EXECUTABLES.stream().filter(Files::isExecutable).findFirst();
    }

    /**
     * A PgBouncer process in front of every database of the server at {@code host:port}, on a free port of the
     * loopback interface, with trust authentication for the user postgres; for tests that manage it themselves.
     */
    public static final class Running implements AutoCloseable {

        private final Path directory;

        private final Process process;

        private final int port;

        private Running(Path directory, Process process, int port) {
            this.directory = directory;
            this.process = process;
            this.port = port;
        }

        /** Starts PgBouncer with {@code pool_mode = poolMode}; fails when it is not installed. */
        public static Running start(String host, int upstreamPort, String poolMode) throws IOException {
            Path executable = executable().orElseThrow(() -> new IllegalStateException(MISSING));
            int port = freePort();
            Path directory = Files.createTempDirectory("fencepost-pgbouncer-");
            // PgBouncer refuses to run as root; it then switches to the postgres user, who must read and write here.
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
            Files.writeString(directory.resolve("users.txt"), "\"postgres\" \"\"\n");
            Files.writeString(
                    directory.resolve("pgbouncer.ini"),
                    String.join(
                            "\n",
                            "[databases]",
                            "* = host=" + host + " port=" + upstreamPort,
                            "[pgbouncer]",
                            "listen_addr = 127.0.0.1",
                            "listen_port = " + port,
                            "unix_socket_dir =",
                            "auth_type = trust",
                            "auth_file = " + directory.resolve("users.txt"),
                            "pool_mode = " + poolMode,
                            "max_client_conn = 500",
                            "default_pool_size = 20",
                            "ignore_startup_parameters = extra_float_digits,options",
                            "logfile = " + directory.resolve("pgbouncer.log"),
                            "pidfile = " + directory.resolve("pgbouncer.pid"),
                            ""));
            for (String file : List.of("users.txt", "pgbouncer.ini")) {
                Files.setPosixFilePermissions(directory.resolve(file), PosixFilePermissions.fromString("rw-r--r--"));
            }
            List<String> command = new ArrayList<>(List.of(executable.toString()));
            if ("root".equals(System.getProperty("user.name"))) {
                command.addAll(List.of("-u", "postgres"));
            }
            command.add(directory.resolve("pgbouncer.ini").toString());
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(directory.resolve("stdout.log").toFile())
                    .start();
            Running running = new Running(directory, process, port);
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        if (!process.isAlive()) {
                            throw new IllegalStateException(
                                    "pgbouncer exited with " + process.exitValue() + ": " + running.log());
                        }
                        return accepts(port);
                    });
            return running;
        }

        /** The port it listens on, at 127.0.0.1. */
        public int port() {
            return port;
        }

        /** PgBouncer's log so far. */
        public String log() {
            try {
                Path log = directory.resolve("pgbouncer.log");
                Path stdout = directory.resolve("stdout.log");
                return (Files.exists(log) ? Files.readString(log) : "")
                        + (Files.exists(stdout) ? Files.readString(stdout) : "");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Stops PgBouncer and removes its directory (configuration and logs). */
        @Override
        public void close() {
            process.destroy();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try (Stream<Path> files = Files.walk(directory)) {
                files.sorted(Comparator.reverseOrder())
                        .forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                // a temporary directory left behind: not worth failing a test for
            }
        }
    }

    /** The test database through PgBouncer, with {@code parameters} (such as {@code prepareThreshold=0}) added. */
    public String jdbcUrl(String parameters) {
        Matcher url = HOST_PORT.matcher(db.jdbcUrl());
        if (!url.matches()) {
            throw new IllegalStateException("cannot read the database from " + db.jdbcUrl());
        }
        return "jdbc:postgresql://127.0.0.1:" + running.port() + "/" + url.group(3) + "?user=postgres"
                + (parameters.isEmpty() ? "" : "&" + parameters);
    }

    /** A HikariCP pool of {@code size} connections through PgBouncer, closed after the class. */
    public DataSource pool(String parameters, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl(parameters));
        config.setPoolName("fencepost-pgbouncer-" + poolMode.toLowerCase(Locale.ROOT) + "-" + pools.size());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(10_000);
        HikariDataSource pool = new HikariDataSource(config);
        pools.add(pool);
        return pool;
    }

    /** PgBouncer's log so far. */
    public String log() {
        return running.log();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
