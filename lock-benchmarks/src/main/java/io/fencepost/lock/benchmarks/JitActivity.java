package io.fencepost.lock.benchmarks;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How long the JIT compilers of the run's JVMs have worked so far, in milliseconds: this JVM's, plus that of every
 * second JVM while it is watched. A library is measured at its steady state only once this stops growing; a library
 * with more code on its hot path takes more warm-up to get there, and on two cores a compiler thread still at work
 * takes a core from the measurement.
 */
public final class JitActivity {

    private static final CompilationMXBean OWN = ManagementFactory.getCompilationMXBean();

    /** How long {@link #awaitQuiet} waits at most for the compilers to fall idle. */
    private static final long QUIET_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** The compilers count as idle when their time has not grown over this long. */
    private static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(150);

    private final Set<LongSupplier> others = ConcurrentHashMap.newKeySet();

    /** The compilation time at the last {@link #mark} or {@link #awaitQuiet}. */
    private long marked;

    private static final CompilerThreads COMPILER_THREADS = CompilerThreads.ofThisJvm();

    /**
     * This JVM's compilers' work so far, in milliseconds: the CPU time of its compiler threads where Linux tells it
     * ({@link CompilerThreads}, which grows while a compilation runs), else the JDK's total compilation time (which
     * grows when one ends), else 0.
     */
    public static long ownMillis() {
        OptionalLong cpu = COMPILER_THREADS.cpuMillis();
        if (cpu.isPresent()) {
            return cpu.getAsLong();
        }
        return OWN != null && OWN.isCompilationTimeMonitoringSupported() ? OWN.getTotalCompilationTime() : 0;
    }

    /** The compilation time of every watched JVM, this one included, in milliseconds. */
    public long millis() {
        long total = ownMillis();
        for (LongSupplier other : others) {
            total += other.getAsLong();
        }
        return total;
    }

    /** Starts counting {@link #sinceMark} from now. */
    public void mark() {
        marked = millis();
    }

    /** The compilers' work since the last {@link #mark} or {@link #awaitQuiet}, in milliseconds. */
    public long sinceMark() {
        return millis() - marked;
    }

    /**
     * Waits until the compilers of every watched JVM are idle, at most 10 s, and marks. A measurement window starts
     * here: compilations that setting up its clients queued (a migration check, a pool) would otherwise run on a core
     * the measurement needs, and on two cores that is half of them.
     */
    public void awaitQuiet() throws InterruptedException {
        long deadline = System.nanoTime() + QUIET_LIMIT_NANOS;
        long last = millis();
        long quietSince = System.nanoTime();
        while (System.nanoTime() - quietSince < QUIET_NANOS && System.nanoTime() < deadline) {
            Thread.sleep(25);
            long now = millis();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            }
        }
        marked = last;
    }

    /** Counts {@code other}'s compilation time too until the returned handle is closed. */
    public Watch watch(LongSupplier other) {
        others.add(other);
        return () -> others.remove(other);
    }

    /** A watched JVM's place in the sum; closing it stops counting that JVM. */
    @FunctionalInterface
    public interface Watch extends AutoCloseable {
        @Override
        void close();
    }
}
