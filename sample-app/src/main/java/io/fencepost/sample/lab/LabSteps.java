package io.fencepost.sample.lab;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the walk-through's steps one at a time, in the background, and says which one runs. */
final class LabSteps implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LabSteps.class);

    private final Map<String, LabStep> steps = new LinkedHashMap<>();

    private final Supplier<StepContext> contexts;

    private final LabLog log;

    private final AtomicReference<String> running = new AtomicReference<>();

    private final ExecutorService runner = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "lab-step");
        thread.setDaemon(true);
        return thread;
    });

    LabSteps(List<LabStep> steps, Supplier<StepContext> contexts, LabLog log) {
        steps.forEach(step -> this.steps.put(step.id(), step));
        this.contexts = contexts;
        this.log = log;
    }

    /**
     * Starts step {@code id} unless one is running.
     *
     * @return false when another step is running
     * @throws IllegalArgumentException for an unknown step
     */
    boolean start(String id) {
        LabStep step = steps.get(id);
        if (step == null) {
            throw new IllegalArgumentException("no lab step '" + id + "'; the steps are " + steps.keySet());
        }
        if (!running.compareAndSet(null, id)) {
            return false;
        }
        runner.execute(() -> {
            try (StepContext context = contexts.get()) {
                step.run(context);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                LOG.warn("lab step {} failed", id, e);
                log.event(null, "error", "step " + id + " failed: " + e);
                log.result(id, false, "the step failed: " + e.getMessage());
            } finally {
                running.set(null);
            }
        });
        return true;
    }

    /** Forgets what the steps counted. */
    void reset() {
        steps.values().forEach(LabStep::reset);
    }

    /** The step running now, or null. */
    String running() {
        return running.get();
    }

    @Override
    public void close() {
        runner.shutdownNow();
        try {
            // A step's own clean-up (a failover's databases) runs on its thread: let it finish.
            if (!runner.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("a lab step still runs after 30 s: {}", running.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
