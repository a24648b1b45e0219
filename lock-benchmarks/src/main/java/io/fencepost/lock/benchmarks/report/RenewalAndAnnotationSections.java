package io.fencepost.lock.benchmarks.report;

import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.scenarios.AnnotationResult;
import io.fencepost.lock.benchmarks.scenarios.RenewalResult;
import java.util.function.ToDoubleFunction;

/** Writes the sections on holding many leases under renewal and on the cost of {@code @DistributedLock}. */
record RenewalAndAnnotationSections(Results r, Markdown md) implements Section {

    @Override
    public void write() {
        renewal();
        annotation();
    }

    private void renewal() {
        if (r.renewal.isEmpty()) {
            return;
        }
        md.line("## Many held leases under renewal");
        md.line();
        md.line("N leases taken by 4 threads that stay alive (Fencepost stops renewing a lease whose holder thread has"
                + " died), then observed for 3 renewal periods after one period of settling. Fencepost renews every"
                + " lease a third of its lease time after its last confirmation, all that are due in one `UPDATE`"
                + " per tick; its statements are counted and timed by a wrapper around its `DataSource`. Redisson's"
                + " watchdog is set to the same lease time (so it also extends every third of it); the commands it"
                + " sends are counted on the wire by the proxy (it also carried the acquisitions, so their time is"
                + " not comparable), and what Redis executed, the calls inside its Lua scripts included, is listed"
                + " beside. Leases lost: renewals that failed, or locks no longer held when released at the end."
                + " Heap per lease: retained heap after full GCs, divided by N, the handles the caller keeps"
                + " included.");
        md.line();
        md.line("| library | leases | lease time / renewal period | statements per period | leases per statement |"
                + " lease extensions per period | renewal statement p50 / max | leases lost | heap per lease | taken"
                + " in | what was sent during the window |");
        md.line("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (RenewalResult x : r.renewal) {
            md.line("| " + x.library() + " | " + Fmt.count(x.leases()) + " | " + Fmt.num(x.leaseSeconds()) + " s / "
                    + Fmt.num(x.period()) + " s | " + Fmt.num(x.statementsPerPeriod()) + " | "
                    + Fmt.count(x.leasesPerStatement()) + " | " + Fmt.count(x.renewedPerPeriod()) + " | "
                    + Fmt.ms(x.statementP50Ms()) + " / " + Fmt.ms(x.statementMaxMs()) + " | " + x.lost() + " | "
                    + Fmt.count(x.heapBytesPerLease()) + " B | " + Fmt.num(x.acquireSeconds()) + " s | "
                    + Markdown.cell(x.breakdown()) + " |");
        }
        md.line();
    }

    private void annotation() {
        if (r.annotation.isEmpty()) {
            return;
        }
        md.line("## `@DistributedLock` overhead");
        md.line();
        md.line("The starter's auto-configuration and advisor in a Spring context, over `DefaultLockManager` with the"
                + " in-memory store (no I/O). The same trivial method is called plainly, inside"
                + " `lockManager.withLock(\"invoice:\" + id, options, ...)`, and through its CGLIB proxy with"
                + " `@DistributedLock(key = \"'invoice:' + #id\")`. Batches of 2,000 calls of the three variants"
                + " alternate for the whole window; per round each variant's median batch, then the median over"
                + " rounds. *CPU* is the calling thread's CPU time (what the call costs, and what the target is"
                + " judged on); *wall* is elapsed time, which on this shared machine also contains waiting for a"
                + " core and the renewal thread that every grant wakes.");
        md.line();
        md.line("| call | CPU ns per call | range over rounds | wall ns per call | range over rounds |");
        md.line("| --- | --- | --- | --- | --- |");
        annotationRow("plain method call", AnnotationResult::plainCpuNanos, AnnotationResult::plainWallNanos);
        annotationRow("`LockManager.withLock`", AnnotationResult::directCpuNanos, AnnotationResult::directWallNanos);
        annotationRow(
                "`@DistributedLock` proxy", AnnotationResult::annotatedCpuNanos, AnnotationResult::annotatedWallNanos);
        annotationRow(
                "**annotation overhead** (per-round difference)",
                a -> a.overheadMicros() * 1e3,
                a -> a.wallOverheadMicros() * 1e3);
        md.line();
    }

    private void annotationRow(
            String name, ToDoubleFunction<AnnotationResult> cpu, ToDoubleFunction<AnnotationResult> wall) {
        md.line("| " + name + " | " + Fmt.num(Measured.median(r.annotation, cpu)) + " | "
                + Measured.rangeOf(r.annotation, cpu) + " | " + Fmt.num(Measured.median(r.annotation, wall)) + " | "
                + Measured.rangeOf(r.annotation, wall) + " |");
    }
}
