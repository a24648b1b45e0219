package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.JitActivity;
import io.fencepost.lock.benchmarks.clients.Library;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The first JVM's handle on the second one: starts it with the same class path and JVM options, and talks to it. */
final class ChildJvm implements AutoCloseable {

    /** How far ahead both JVMs are told to start, so that every thread is parked at the line when it opens. */
    private static final long START_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(400);

    /** This JVM's half of a two-JVM round: its threads, as JVM 1, from {@code startAt} on. */
    @FunctionalInterface
    interface OurHalf {
        ContendedWorker.Outcome run(long startAt) throws Exception;
    }

    /** The arguments {@link io.fencepost.lock.benchmarks.ChildMain} expects, for this run. */
    static List<String> arguments(Harness harness) {
        io.fencepost.lock.benchmarks.Settings settings = harness.settings();
        return List.of(
                settings.jdbcUrl(settings.database()),
                settings.pgUser(),
                settings.redisHost(),
                Integer.toString(settings.redisPort()),
                Integer.toString(harness.context().fsyncRedisPort()));
    }

    private final Process process;

    private final PrintWriter commands;

    private final BufferedReader replies;

    private long clockCheckNanos;

    /** Its compilation time counted in the harness's JIT activity, from the clock check until it is closed. */
    private JitActivity.Watch watched = () -> {};

    ChildJvm(List<String> arguments) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!option.startsWith("-agentlib") && !option.startsWith("-javaagent")) {
                command.add(option);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("io.fencepost.lock.benchmarks.ChildMain");
        command.addAll(arguments);
        this.process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        this.commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        this.replies = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        expect("READY");
    }

    /**
     * The second JVM of a run whose hand-off times span both JVMs: started, its clock checked against ours
     * ({@link #checkClock()}) and the check logged.
     */
    static ChildJvm clockChecked(Harness harness) throws IOException {
        ChildJvm child = new ChildJvm(arguments(harness));
        try {
            child.clockCheckNanos = child.checkClock();
            child.watched = harness.jit().watch(child::compilationMillis);
        } catch (IOException | RuntimeException e) {
            child.close();
            throw e;
        }
        harness.log("second JVM up; its System.nanoTime() agrees with ours (checked within "
                + child.clockCheckNanos / 1000 + " µs)");
        return child;
    }

    /** The width of the window in which this JVM's clock reading had to fall, in nanoseconds (0 before a check). */
    long clockCheckNanos() {
        return clockCheckNanos;
    }

    void send(String command) {
        commands.println(command);
    }

    /** The next reply, which must start with {@code @@<word>}; returns what follows the word. */
    String expect(String word) throws IOException {
        String line;
        while ((line = replies.readLine()) != null) {
            if (!line.startsWith("@@")) {
                System.err.println("[second JVM] " + line);
                continue;
            }
            String reply = line.substring(2);
            if (!reply.startsWith(word)) {
                throw new IOException("second JVM answered '" + reply + "' where " + word + " was expected");
            }
            return reply.substring(word.length()).trim();
        }
        throw new IOException("second JVM exited (status " + waitFor() + ") where " + word + " was expected");
    }

    /**
     * One round of {@code total} threads on {@code key}, half in each JVM, all starting at the same instant: the second
     * JVM runs its half as JVM 2 (with {@code onNodes}, one thread per node it opened with {@code NODES}; otherwise
     * threads of its one client of {@code library}) while {@code ours} runs this JVM's. Returns both halves' critical
     * sections merged.
     */
    ContendedResult contend(
            Library library, String key, int total, long windowNanos, long csNanos, boolean onNodes, OurHalf ours)
            throws Exception {
        int half = total / 2;
        Path file = Files.createTempFile("fencepost-bench-", ".events");
        try {
            long startAt = System.nanoTime() + START_DELAY_NANOS;
            List<String> command = new ArrayList<>(List.of(
                    "RUN",
                    library.id(),
                    key,
                    String.valueOf(half),
                    "2",
                    String.valueOf(startAt),
                    String.valueOf(windowNanos),
                    String.valueOf(csNanos),
                    file.toString()));
            if (onNodes) {
                command.add("nodes");
            }
            send(String.join(" ", command));
            ContendedWorker.Outcome mine = ours.run(startAt);
            expect("DONE");
            ContendedWorker.Outcome theirs;
            try (InputStream in = Files.newInputStream(file)) {
                theirs = ContendedWorker.Outcome.read(in);
            }
            List<ContendedWorker.Event> events = new ArrayList<>(mine.events());
            events.addAll(theirs.events());
            List<Long> timedOut = new ArrayList<>(mine.timedOutWaits());
            timedOut.addAll(theirs.timedOutWaits());
            return ContendedResult.of(total, events, timedOut, startAt, windowNanos, mine.errors() + theirs.errors());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * Checks that {@link System#nanoTime()} means the same instant in both JVMs: the second JVM's reading must fall
     * between two of ours. Returns the width of that window in nanoseconds.
     */
    long checkClock() throws IOException {
        long before = System.nanoTime();
        send("TIME");
        long theirs = Long.parseLong(expect("TIME"));
        long after = System.nanoTime();
        if (theirs < before || theirs > after) {
            throw new IllegalStateException("System.nanoTime() differs between the JVMs (theirs " + theirs
                    + ", ours between " + before + " and " + after + "): the hand-off times would be meaningless");
        }
        return after - before;
    }

    /** The second JVM's compilation time so far, in milliseconds. */
    long compilationMillis() {
        send("JIT");
        try {
            return Long.parseLong(expect("JIT"));
        } catch (IOException e) {
            throw new UncheckedIOException("asking the second JVM for its compilation time", e);
        }
    }

    /** Kills the second JVM with SIGKILL, as {@code kill -9} would: nothing in it runs any more. */
    void kill() {
        process.destroyForcibly();
    }

    /** Waits for the killed JVM to be gone. */
    void awaitExit() throws InterruptedException {
        process.waitFor(30, TimeUnit.SECONDS);
    }

    private int waitFor() {
        try {
            return process.waitFor(5, TimeUnit.SECONDS) ? process.exitValue() : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    @Override
    public void close() {
        watched.close();
        if (!process.isAlive()) {
            return;
        }
        send("QUIT");
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroy();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroy();
        }
    }
}
