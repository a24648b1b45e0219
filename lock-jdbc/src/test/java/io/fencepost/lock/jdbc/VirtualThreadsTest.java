package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Thousands of virtual threads waiting on a few keys through one manager on PostgreSQL: exact mutual exclusion, every
 * call done (no deadlock), and no virtual thread pinned to its carrier while it waits, as JFR's
 * {@code jdk.VirtualThreadPinned} events record. Virtual threads need Java 21; CI runs this in its Java 25 build.
 */
@Tag("jdk")
class VirtualThreadsTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase(10);

    private static final int THREADS = 2_000;

    private static final int KEYS = 20;

    @Test
    void thousandsOfVirtualThreadsWaitWithoutPinningAndHoldExclusively() throws Exception {
        Assumptions.assumeTrue(
                Runtime.version().feature() >= 21,
                "virtual threads need Java 21 or later; this is Java "
                        + Runtime.version().feature() + " (CI runs this test in its Java 25 build)");
        LockOptions options = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(30))
                .waitTime(Duration.ofSeconds(120))
                .build();
        try (PostgresLockManager manager =
                PostgresLockManager.builder(db.dataSource()).build()) {
            // First use initializes classes (driver, pool, engine), which may pin a carrier once: not while waiting.
            run(manager, options, 2 * KEYS, "warm-up");

            ConcurrentLinkedQueue<String> pinned = new ConcurrentLinkedQueue<>();
            try (RecordingStream recording = new RecordingStream()) {
                recording
                        .enable("jdk.VirtualThreadPinned")
                        .withThreshold(Duration.ZERO)
                        .withStackTrace();
                recording.onEvent("jdk.VirtualThreadPinned", event -> pinned.add(describe(event)));
                recording.startAsync();

                Result result = run(manager, options, THREADS, "waiting");

                // stop() (Java 20+) delivers the events still buffered; this class compiles for Java 17.
                RecordingStream.class.getMethod("stop").invoke(recording);
                assertThat(result.completed()).as("calls completed").isEqualTo(THREADS);
                assertThat(result.maxInside())
                        .as("most holders of one key at once")
                        .isEqualTo(1);
            }
            assertThat(pinned).as("virtual threads pinned to their carrier").isEmpty();
        }
    }

    /** {@code calls} locked calls, each on a virtual thread of its own, on {@value #KEYS} keys. */
    private static Result run(PostgresLockManager manager, LockOptions options, int calls, String prefix)
            throws Exception {
        ConcurrentHashMap<String, AtomicInteger> inside = new ConcurrentHashMap<>();
        AtomicInteger maxInside = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        ExecutorService executor = virtualThreadPerTask();
        try {
            for (int i = 0; i < calls; i++) {
                String key = prefix + ":" + (i % KEYS);
                futures.add(executor.submit(() -> manager.withLock(key, options, lease -> {
                    int now = inside.computeIfAbsent(key, k -> new AtomicInteger())
                            .incrementAndGet();
                    maxInside.accumulateAndGet(now, Math::max);
                    Thread.yield(); // give another holder, if exclusion failed, the chance to be seen
                    inside.get(key).decrementAndGet();
                    return completed.incrementAndGet();
                })));
            }
            for (Future<?> future : futures) {
                future.get(180, TimeUnit.SECONDS);
            }
        } finally {
            executor.shutdownNow();
        }
        return new Result(completed.get(), maxInside.get());
    }

    private record Result(int completed, int maxInside) {}

    private static ExecutorService virtualThreadPerTask() throws ReflectiveOperationException {
        try {
            return (ExecutorService)
                    Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    private static String describe(RecordedEvent event) {
        StringBuilder text = new StringBuilder(
                event.getThread() == null ? "?" : event.getThread().getJavaName());
        if (event.getStackTrace() != null) {
            for (RecordedFrame frame :
                    event.getStackTrace().getFrames().stream().limit(12).toList()) {
                text.append("\n  at ")
                        .append(frame.getMethod().getType().getName())
                        .append('.')
                        .append(frame.getMethod().getName());
            }
        }
        return text.toString();
    }
}
