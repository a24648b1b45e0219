package io.fencepost.lock.benchmarks;

import io.fencepost.lock.benchmarks.wire.RedisInfo;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A second Redis for the run, on a free loopback port, that appends every write to its log and fsyncs it before
 * answering ({@code appendonly yes}, {@code appendfsync always}, no snapshots), in a temporary folder removed when it
 * stops: the Redis a lock would need for its grants to survive a crash of the server's machine.
 */
public final class FsyncRedis implements AutoCloseable {

    private static final String BINARY = "redis-server";

    private final Process process;

    private final Path dir;

    private final int port;

    private FsyncRedis(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    /** {@code redis-server} as found on the {@code PATH}, if it is there. */
    public static Optional<Path> binary() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        return Stream.of(path.split(File.pathSeparator))
                .filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, BINARY))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** Starts it and waits until it answers. */
    public static FsyncRedis start(String host) throws IOException, InterruptedException {
        Path binary = binary().orElseThrow(() -> new IOException("no " + BINARY + " on the PATH"));
        Path dir = Files.createTempDirectory("fencepost-bench-redis-");
        int port = freePort(host);
        Process process = new ProcessBuilder(List.of(
                        binary.toString(),
                        "--port",
                        String.valueOf(port),
                        "--bind",
                        host,
                        "--dir",
                        dir.toString(),
                        "--appendonly",
                        "yes",
                        "--appendfsync",
                        "always",
                        "--save",
                        "",
                        "--loglevel",
                        "warning"))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        FsyncRedis redis = new FsyncRedis(process, dir, port);
        try {
            redis.awaitAnswer(host);
        } catch (IOException | RuntimeException e) {
            redis.close();
            throw e;
        }
        return redis;
    }

    public int port() {
        return port;
    }

    private static int freePort(String host) throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(host))) {
            return socket.getLocalPort();
        }
    }

    /** Waits until it answers {@code INFO}, and checks that it appends every write. */
    private void awaitAnswer(String host) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        IOException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException(BINARY + " exited (status " + process.exitValue() + "): "
                        + Files.readString(dir.resolve("redis.log")).strip());
            }
            try {
                if (!"1".equals(new RedisInfo(host, port).facts().get("aof_enabled"))) {
                    throw new IllegalStateException(BINARY + " on port " + port + " started without appendonly");
                }
                return;
            } catch (IOException notYet) {
                last = notYet;
            }
            Thread.sleep(50);
        }
        throw new IOException(BINARY + " on port " + port + " did not answer within 10 s", last);
    }

    /** Stops the server (SIGTERM, then SIGKILL after 10 s) and removes its folder. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not remove " + dir + ": " + e);
        }
    }
}
