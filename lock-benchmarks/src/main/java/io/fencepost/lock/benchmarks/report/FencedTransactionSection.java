package io.fencepost.lock.benchmarks.report;

import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.scenarios.FencedTransactionResult;
import java.util.function.ToDoubleFunction;

/** Writes the section on what {@code fenceTransaction = true} costs an annotated {@code @Transactional} call. */
record FencedTransactionSection(Results r, Markdown md) implements Section {

    @Override
    public void write() {
        if (r.fencedTransaction.isEmpty()) {
            return;
        }
        md.line("## A fenced transaction");
        md.line();
        md.line(
                "The starter on PostgreSQL with a `JdbcTransactionManager`: the same `@DistributedLock` `@Transactional`"
                        + " method (one `UPDATE` of the row of its own key, 1,024 keys in turn, so that no call waits) called"
                        + " through its proxy without and with `fenceTransaction = true`. Batches of 50 calls of each alternate"
                        + " for the window; per round each variant's median batch, then the median over rounds. Statements"
                        + " are counted in the JDBC driver's socket (lock statements, `BEGIN`, the `UPDATE`, `COMMIT`,"
                        + " renewals).");
        md.line();
        md.line("| call | µs per call | range over rounds | statements per call |");
        md.line("| --- | --- | --- | --- |");
        row(
                "`@DistributedLock` + `@Transactional`",
                FencedTransactionResult::plainMicros,
                FencedTransactionResult::plainStatements);
        row(
                "the same with `fenceTransaction = true`",
                FencedTransactionResult::fencedMicros,
                FencedTransactionResult::fencedStatements);
        row(
                "**what the fence adds** (per-round difference)",
                FencedTransactionResult::overheadMicros,
                FencedTransactionResult::extraStatements);
        md.line();
    }

    private void row(
            String name,
            ToDoubleFunction<FencedTransactionResult> micros,
            ToDoubleFunction<FencedTransactionResult> statements) {
        md.line("| " + name + " | " + Fmt.num(Measured.median(r.fencedTransaction, micros)) + " | "
                + Measured.rangeOf(r.fencedTransaction, micros) + " | "
                + Fmt.num(Measured.median(r.fencedTransaction, statements)) + " |");
    }
}
