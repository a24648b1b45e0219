package io.fencepost.lock.benchmarks.scenarios;

/**
 * Nanoseconds per call, in one round, of the same trivial method called plainly, under
 * {@code LockManager.withLock} and through its {@code @DistributedLock} proxy (in-memory lease store): CPU time of
 * the calling thread, and wall-clock time.
 */
public record AnnotationResult(
        double plainCpuNanos,
        double directCpuNanos,
        double annotatedCpuNanos,
        double plainWallNanos,
        double directWallNanos,
        double annotatedWallNanos) {

    /** What the annotation adds over the direct call in the caller's CPU time, in microseconds. */
    public double overheadMicros() {
        return (annotatedCpuNanos - directCpuNanos) / 1e3;
    }

    /** The same in wall-clock time (includes waiting for a CPU on a busy machine), in microseconds. */
    public double wallOverheadMicros() {
        return (annotatedWallNanos - directWallNanos) / 1e3;
    }
}
