package io.fencepost.lock.benchmarks.scenarios;

/**
 * One round of an annotated {@code @Transactional} call (acquire, begin, one {@code UPDATE}, commit, release) without
 * and with {@code fenceTransaction = true}: wall-clock microseconds per call, and statements sent per call.
 */
public record FencedTransactionResult(
        double plainMicros, double fencedMicros, double plainStatements, double fencedStatements) {

    /** What {@code fenceTransaction} adds per call, in microseconds. */
    public double overheadMicros() {
        return fencedMicros - plainMicros;
    }

    /** What {@code fenceTransaction} adds per call, in statements. */
    public double extraStatements() {
        return fencedStatements - plainStatements;
    }
}
