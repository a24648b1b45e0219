package io.fencepost.sample.db;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lab's own PostgreSQL data directories under one base directory, one folder per application process
 * ({@code run-<pid>}): copied, crashed, deleted, and swept up after a process that died without cleaning up.
 */
public final class DataDirectories {

    private static final Logger LOG = LoggerFactory.getLogger(DataDirectories.class);

    private static final String RUN_PREFIX = "run-";

    private DataDirectories() {}

    /** This process's folder under {@code base}, created. */
    public static Path ownRun(Path base) {
        try {
            return Files.createDirectories(
                    base.resolve(RUN_PREFIX + ProcessHandle.current().pid()));
        } catch (IOException e) {
            throw new UncheckedIOException("could not create the lab's directory under " + base, e);
        }
    }

    /**
     * Kills the postmasters left in the folders of processes that are gone (an application killed with {@code kill
     * -9} never stopped them) and deletes those folders.
     *
     * @return how many folders were swept
     */
    public static int sweep(Path base) {
        if (!Files.isDirectory(base)) {
            return 0;
        }
        int swept = 0;
        try (Stream<Path> runs = Files.list(base)) {
            for (Path run : runs.toList()) {
                Optional<Long> owner = ownerOf(run);
                if (owner.isPresent()
                        && ProcessHandle.of(owner.get())
                                .map(ProcessHandle::isAlive)
                                .orElse(false)) {
                    continue;
                }
                destroy(run);
                swept++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not sweep " + base, e);
        }
        if (swept > 0) {
            LOG.warn("swept {} folder(s) of the lab's databases left by a process that died: {}", swept, base);
        }
        return swept;
    }

    /** Kills every postmaster whose data directory is under {@code folder}, then deletes the folder. */
    public static void destroy(Path folder) {
        if (!Files.exists(folder)) {
            return;
        }
        try (Stream<Path> files = Files.walk(folder)) {
            files.filter(file -> file.getFileName().toString().equals("postmaster.pid"))
                    .map(Path::getParent)
                    .toList()
                    .forEach(DataDirectories::crash);
        } catch (IOException e) {
            LOG.warn("could not look for postmasters under {}: {}", folder, e.toString());
        }
        delete(folder);
    }

    private static Optional<Long> ownerOf(Path run) {
        String name = run.getFileName().toString();
        if (!name.startsWith(RUN_PREFIX)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Long.parseLong(name.substring(RUN_PREFIX.length())));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The postmaster of data directory {@code data}, if it still runs. */
    static Optional<ProcessHandle> postmaster(Path data) {
        Path pidFile = data.resolve("postmaster.pid");
        if (!Files.isRegularFile(pidFile)) {
            return Optional.empty();
        }
        try {
            List<String> lines = Files.readAllLines(pidFile);
            return lines.isEmpty()
                    ? Optional.empty()
                    : ProcessHandle.of(Long.parseLong(lines.get(0).trim()))
                            .filter(ProcessHandle::isAlive)
                            .filter(process -> process.info()
                                    .command()
                                    .map(command -> command.endsWith("postgres"))
                                    .orElse(true));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** {@code kill -9} of the postmaster of {@code data} and every process it started, and waits until they are gone. */
    public static void crash(Path data) {
        postmaster(data).ifPresent(postmaster -> {
            List<ProcessHandle> children = postmaster.descendants().toList();
            postmaster.destroyForcibly();
            children.forEach(ProcessHandle::destroyForcibly);
            Stream.concat(Stream.of(postmaster), children.stream()).forEach(process -> {
                try {
                    process.onExit().get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    LOG.warn("process {} of {} did not exit after kill -9: {}", process.pid(), data, e.toString());
                }
            });
        });
    }

    /** Copies data directory {@code from} (stopped) to {@code to}, without its lock files. */
    static void copy(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Path copy =
                        Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                // PostgreSQL refuses a data directory that others may read (0700, as initdb made it)
                Files.setPosixFilePermissions(copy, Files.getPosixFilePermissions(dir));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                String name = file.getFileName().toString();
                if (!name.equals("postmaster.pid") && !name.equals("epg-lock")) {
                    Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** Deletes {@code directory} and everything in it, if it exists. */
    public static void delete(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("could not delete {}: {}", directory, e.toString());
        }
    }
}
