package io.fencepost.lock.benchmarks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The CPU time the JIT compiler threads of a JVM have used so far, from Linux's {@code /proc/<pid>/task}. Unlike the
 * JDK's total compilation time, which grows only when a compilation finishes, this grows while one runs: a C2
 * compilation of a large method takes most of a second, and a window that starts in the middle of it would lose a
 * core to it on a two-core machine.
 */
final class CompilerThreads {

    /** Linux reports thread times in clock ticks of this many per second ({@code USER_HZ}). */
    private static final long TICKS_PER_SECOND = 100;

    private final Path tasks;

    /** The last time read per thread: a compiler thread that ended keeps counting with what it used. */
    private final Map<String, Long> ticksByThread = new HashMap<>();

    CompilerThreads(Path tasks) {
        this.tasks = tasks;
    }

    /** This JVM's compiler threads. */
    static CompilerThreads ofThisJvm() {
        return new CompilerThreads(Path.of("/proc/self/task"));
    }

    /**
     * Milliseconds of CPU the compiler threads have used so far; empty where {@code /proc} is not there or shows no
     * thread named as HotSpot names its compilers (another JVM), so that the caller falls back to the JDK's figure.
     */
    synchronized OptionalLong cpuMillis() {
        if (!Files.isDirectory(tasks)) {
            return OptionalLong.empty();
        }
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
            for (Path thread : threads) {
                String stat;
                try {
                    stat = Files.readString(thread.resolve("stat"));
                } catch (IOException ended) {
                    continue; // the thread ended between the listing and the read
                }
                int nameStart = stat.indexOf('(');
                int nameEnd = stat.lastIndexOf(')');
                if (nameStart < 0 || nameEnd < nameStart) {
                    continue;
                }
                String name = stat.substring(nameStart + 1, nameEnd);
                if (!name.startsWith("C1 CompilerThre") && !name.startsWith("C2 CompilerThre")) {
                    continue;
                }
                // After the name: state, then fields 4..; utime and stime are fields 14 and 15 of the line.
                String[] fields = stat.substring(nameEnd + 2).trim().split(" ");
                long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                ticksByThread.merge(thread.getFileName().toString(), ticks, Math::max);
            }
        } catch (IOException e) {
            return OptionalLong.empty();
        }
        if (ticksByThread.isEmpty()) {
            return OptionalLong.empty();
        }
        long ticks = ticksByThread.values().stream().mapToLong(Long::longValue).sum();
        return OptionalLong.of(ticks * 1_000 / TICKS_PER_SECOND);
    }
}
