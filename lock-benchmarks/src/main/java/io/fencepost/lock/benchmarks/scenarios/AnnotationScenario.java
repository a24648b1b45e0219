package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.Samples;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.spring.autoconfigure.LockAutoConfiguration;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The cost of {@code @DistributedLock} itself: the starter's auto-configuration and advisor in a Spring context,
 * with a {@link DefaultLockManager} over the in-memory store so that no I/O hides the difference. The key is a SpEL
 * expression over an argument; the direct call builds the same key by hand.
 */
public final class AnnotationScenario {

    /** Calls between two clock readings. */
    private static final int BATCH = 2_000;

    private final Harness harness;

    /** Keeps results alive so the JIT cannot drop the calls. */
    private long sink;

    public AnnotationScenario(Harness harness) {
        this.harness = harness;
    }

    /** A bean with one locked method (proxied by class, as most beans are). */
    public static class Invoices {

        @DistributedLock(key = "'invoice:' + #id")
        public long settle(long id) {
            return work(id);
        }

        long work(long id) {
            return id * 31 + 7;
        }
    }

    /** The application: the starter's auto-configuration, a lock manager bean and the locked bean. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(LockAutoConfiguration.class)
    static class Application {

        @Bean(destroyMethod = "close")
        DefaultLockManager lockManager() {
            return DefaultLockManager.builder(new InMemoryLeaseStore()).build();
        }

        @Bean
        Invoices invoices() {
            return new Invoices();
        }
    }

    public List<AnnotationResult> run() throws Exception {
        List<AnnotationResult> rounds = new ArrayList<>();
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Application.class)) {
            LockManager locks = context.getBean(LockManager.class);
            Invoices proxied = context.getBean(Invoices.class);
            if (!org.springframework.aop.support.AopUtils.isAopProxy(proxied)) {
                throw new IllegalStateException("@DistributedLock did not proxy the bean: the starter is not wired");
            }
            Invoices plain = new Invoices();
            LockOptions options = LockOptions.defaults();
            long windowNanos = harness.settings().annotationWindow().toNanos();
            Call[] calls = {
                id -> plain.settle(id),
                id -> locks.withLock("invoice:" + id, options, lease -> plain.work(id)),
                proxied::settle
            };
            // The proxy's path (advisor, SpEL evaluation, interceptor) needs several seconds of calls before the JIT
            // has compiled all of it; a short warm-up makes the first rounds measure the interpreter.
            long warmUp = Math.max(windowNanos, harness.settings().quick() ? 500_000_000L : 3_000_000_000L);
            measure(calls, warmUp);
            // Rounds are cheap here and the figures small next to the machine's noise: twice as many.
            int roundCount = 2 * harness.settings().rounds();
            for (int round = 0; round <= roundCount; round++) {
                double[] nanos = measure(calls, windowNanos);
                AnnotationResult result =
                        new AnnotationResult(nanos[0], nanos[1], nanos[2], nanos[3], nanos[4], nanos[5]);
                harness.log("annotation " + (round == 0 ? "warm-up" : "round " + round)
                        + ": CPU plain %.0f ns, withLock %.0f ns, @DistributedLock %.0f ns (wall %.0f, %.0f, %.0f)"
                                .formatted(
                                        result.plainCpuNanos(),
                                        result.directCpuNanos(),
                                        result.annotatedCpuNanos(),
                                        result.plainWallNanos(),
                                        result.directWallNanos(),
                                        result.annotatedWallNanos()));
                if (round > 0) {
                    rounds.add(result);
                }
            }
        }
        if (sink == 42) {
            harness.log("(sink)");
        }
        return rounds;
    }

    @FunctionalInterface
    private interface Call {
        long call(long id) throws Exception;
    }

    /**
     * Nanoseconds per call of each variant, CPU time of this thread first, then wall-clock time: batches of the
     * variants alternate for the whole window (so that each sees the same machine, renewal thread and collector),
     * and each variant's batches give their median. CPU time is what the call itself costs; on a shared machine
     * with more runnable threads than cores, wall-clock time is mostly the wait for a core.
     */
    private double[] measure(Call[] calls, long windowNanos) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Samples[] cpu = new Samples[calls.length];
        Samples[] wall = new Samples[calls.length];
        for (int i = 0; i < calls.length; i++) {
            cpu[i] = new Samples();
            wall[i] = new Samples();
        }
        long end = System.nanoTime() + windowNanos;
        long id = 0;
        long acc = 0;
        while (System.nanoTime() < end) {
            for (int v = 0; v < calls.length; v++) {
                long c0 = threads.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                for (int i = 0; i < BATCH; i++) {
                    acc += calls[v].call(id++ & 1023);
                }
                wall[v].add(System.nanoTime() - t0);
                cpu[v].add(threads.getCurrentThreadCpuTime() - c0);
            }
        }
        sink += acc;
        double[] nanos = new double[2 * calls.length];
        for (int v = 0; v < calls.length; v++) {
            nanos[v] = cpu[v].percentile(50) / BATCH;
            nanos[calls.length + v] = wall[v].percentile(50) / BATCH;
        }
        return nanos;
    }
}
