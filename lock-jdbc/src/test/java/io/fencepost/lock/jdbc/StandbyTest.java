package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A lock manager pointed at a real read-only standby: a primary and a streaming standby made for this class with the
 * machine's PostgreSQL binaries ({@code initdb}, {@code pg_basebackup}); skipped where they are not installed.
 */
@Tag("full")
class StandbyTest {

    private static Path directory;

    private static Path bin;

    private static int standbyPort;

    private static final List<Path> started = new ArrayList<>();

    @BeforeAll
    static void startPrimaryAndStandby() throws Exception {
        Optional<Path> binaries;
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            binaries = versions.map(version -> version.resolve("bin"))
                    .filter(path -> Files.isExecutable(path.resolve("initdb")))
                    .max(Comparator.naturalOrder());
        } catch (IOException e) {
            binaries = Optional.empty();
        }
        Assumptions.assumeTrue(
                binaries.isPresent(),
                "no PostgreSQL binaries under /usr/lib/postgresql/*/bin (Debian's postgresql package, which .ci/run"
                        + " installs): cannot make a standby");
        bin = binaries.get();
        directory = Files.createTempDirectory("fencepost-standby-");
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path primary = directory.resolve("primary");
        Path standby = directory.resolve("standby");
        int primaryPort = freePort();
        standbyPort = freePort();
        run("initdb", "-D", primary.toString(), "-U", "postgres", "--auth=trust", "-E", "UTF8");
        start(primary, primaryPort);
        run(
                "pg_basebackup",
                "-D",
                standby.toString(),
                "-h",
                "127.0.0.1",
                "-p",
                String.valueOf(primaryPort),
                "-U",
                "postgres",
                "-R",
                "-X",
                "stream");
        start(standby, standbyPort);
    }

    @AfterAll
    static void stop() throws Exception {
        for (Path data : started) {
            run("pg_ctl", "-D", data.toString(), "-m", "immediate", "stop");
        }
    }

    @Test
    void aManagerPointedAtAStandbyFailsAtStartUpSayingSo() {
        PGSimpleDataSource standby = new PGSimpleDataSource();
        standby.setURL("jdbc:postgresql://127.0.0.1:" + standbyPort + "/postgres?user=postgres");

        assertThatThrownBy(() -> PostgresLockManager.builder(standby).build())
                .isInstanceOf(UnsafeLockStoreException.class)
                .hasMessageContaining("it is a read-only standby (pg_is_in_recovery() is true)")
                .hasMessageContaining("point fencepost at the primary");
    }

    private static void start(Path data, int port) throws Exception {
        run(
                "pg_ctl",
                "-D",
                data.toString(),
                "-l",
                data + ".log",
                "-w",
                "-o",
                "-p " + port + " -k " + directory + " -c listen_addresses=127.0.0.1",
                "start");
        started.add(data);
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL("jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres");
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptionsInstanceOf(SQLException.class)
                .until(() -> {
                    try (Connection connection = dataSource.getConnection()) {
                        return connection.isValid(1);
                    }
                });
    }

    /** Runs one of the PostgreSQL binaries, as the postgres user when this is root (PostgreSQL refuses root). */
    private static void run(String program, String... arguments) throws Exception {
        List<String> command = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.add(bin.resolve(program).toString());
        command.addAll(List.of(arguments));
        Path log = directory.resolve(program + ".out");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException(program + " failed: " + Files.readString(log));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
