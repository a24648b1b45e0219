package io.fencepost.sample.lab;

/**
 * One step of the design walk-through, run once on a key of its own beside the workers: the race, the holder that
 * dies, the stale release, renewal, the failover of a replicated store. It tells what happened from the store's view
 * and its clients' answers.
 */
interface LabStep {

    /** As the page and the API name it: race, dead-holder, stale-release, renewal, failover-async, failover-sync. */
    String id();

    /** Runs the step and records its result ({@link StepContext#result}); the clients it opens, it closes. */
    void run(StepContext context) throws InterruptedException;

    /** Forgets what earlier runs counted ("Reset"). */
    default void reset() {}
}
