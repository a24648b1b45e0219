package io.fencepost.lock.benchmarks.report;

import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST;

import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.scenarios.CountingResult;
import io.fencepost.lock.benchmarks.scenarios.CycleResult;

/** Writes the single-threaded sections: uncontended cycles, losing attempts, and statements and round trips. */
record UncontendedSections(Settings settings, Results r, Markdown md) implements Section {

    @Override
    public void write() {
        uncontended();
        losing();
        counting();
    }

    private void uncontended() {
        if (r.sameKey == null) {
            return;
        }
        md.line("## Uncontended acquire + release");
        md.line();
        md.line(
                "One thread, nobody else. Cycle = acquire (or `lock`) + release on a free key; the `SELECT 1` row is one"
                        + " pooled round trip, and the row in italics is Fencepost's PostgreSQL store called directly (same"
                        + " statements, no engine), to show where Fencepost's time goes. Ratios: Fencepost's cycles/s"
                        + " divided by the row's (above 1: Fencepost is faster).");
        md.line();
        cycleTable("Same key every cycle", r.sameKey, true);
        if (r.distinctKeys != null) {
            cycleTable("A new key every cycle", r.distinctKeys, true);
        }
    }

    private void cycleTable(String title, Series<CycleResult> s, boolean cycle) {
        md.line("### " + title);
        md.line();
        md.line(
                cycle
                        ? "| library | cycles/s | range over rounds | cycle p50 | cycle p99 | acquire p50 | release p50 | Fencepost ÷ this |"
                        : "| library | attempts/s | range over rounds | attempt p50 | attempt p99 | Fencepost ÷ this |");
        md.line(cycle ? "| --- | --- | --- | --- | --- | --- | --- | --- |" : "| --- | --- | --- | --- | --- | --- |");
        for (Library library : s.libraries()) {
            StringBuilder row = new StringBuilder("| ")
                    .append(name(library))
                    .append(" | ")
                    .append(Fmt.count(s.median(library, CycleResult::perSecond)))
                    .append(" | ")
                    .append(Fmt.range(s.min(library, CycleResult::perSecond), s.max(library, CycleResult::perSecond)))
                    .append(" | ")
                    .append(Fmt.us(s.median(library, CycleResult::p50Micros)))
                    .append(" | ")
                    .append(Fmt.us(s.median(library, CycleResult::p99Micros)))
                    .append(" | ");
            if (cycle) {
                row.append(Fmt.us(s.median(library, CycleResult::acquireP50Micros)))
                        .append(" | ")
                        .append(Fmt.us(s.median(library, CycleResult::releaseP50Micros)))
                        .append(" | ");
            }
            row.append(library == FENCEPOST ? "1" : Fmt.ratio(s.ratio(FENCEPOST, library, CycleResult::perSecond)))
                    .append(" |");
            long anomalies =
                    s.of(library).stream().mapToLong(CycleResult::anomalies).sum();
            if (anomalies > 0) {
                row.append(" (").append(anomalies).append(cycle ? " failed acquires)" : " unexpected wins)");
            }
            md.line(row.toString());
        }
        md.line();
    }

    private static String name(Library library) {
        return library.isEvidence() ? "*" + library.label() + "*" : Section.label(library);
    }

    private void losing() {
        if (r.losing == null) {
            return;
        }
        md.line("## Losing `tryAcquire`");
        md.line();
        md.line(
                "The key is held by another client (another manager, registry, connection or Redisson client, on its own"
                        + " thread); one thread makes single attempts as fast as it can, each of which must fail. The"
                        + " bare `INSERT … ON CONFLICT DO NOTHING` row is the floor: one autocommit statement into a"
                        + " table of its own, no lease, no fencing token.");
        md.line();
        cycleTable("Attempts on a held key", r.losing, false);
    }

    private void counting() {
        if (r.counting.isEmpty()) {
            return;
        }
        md.line("## Statements and round trips");
        md.line();
        md.line("Counted on the client's wire (see Method) over " + settings.countedCycles()
                + " uncontended cycles (after 20 for"
                + " warm-up), 50 losing attempts, 50 nested acquires and 50 extensions of a held lease (see the"
                + " extend section; shared leases and permits: the cycle and the extension only). The server's own counts are"
                + " transactions in the benchmark database (`pg_stat_database`) or Redis commands (`INFO"
                + " commandstats`), and WAL flushes and bytes of the whole cluster (`pg_stat_wal`: other activity on"
                + " the server, and checkpoints, add noise there; a negative value is such noise).");
        md.line();
        md.line("| library | per cycle: statements / round trips | statements in a cycle | server: transactions per"
                + " cycle (Redis: commands executed, those inside Lua scripts included) | WAL flushes / bytes per"
                + " cycle | losing attempt: statements / round trips | reentrant acquire + release: round trips |"
                + " extend a held lease: statements / round trips |");
        md.line("| --- | --- | --- | --- | --- | --- | --- | --- |");
        for (CountingResult c : r.counting) {
            Library library = c.library();
            String server = library.onRedis()
                    ? Fmt.num(c.serverCommandsPerCycle()) + " (" + c.serverBreakdown() + ")"
                    : Fmt.num(c.serverTransactionsPerCycle());
            String wal = library.onRedis()
                    ? Fmt.NONE
                    : Fmt.num(c.walSyncsPerCycle()) + " / " + Fmt.count(c.walBytesPerCycle());
            String losing = Double.isNaN(c.statementsPerLosingTry())
                    ? Fmt.NONE
                    : Fmt.num(c.statementsPerLosingTry()) + " / " + Fmt.num(c.roundTripsPerLosingTry()) + " ("
                            + c.losingBreakdown() + ")";
            md.line("| " + Section.label(library) + " | "
                    + Fmt.num(c.statementsPerCycle()) + " / " + Fmt.num(c.roundTripsPerCycle()) + " | "
                    + Markdown.cell(c.cycleBreakdown()) + " | " + Markdown.cell(server) + " | " + wal + " | "
                    + Markdown.cell(losing) + " | "
                    + (Double.isNaN(c.reentrantRoundTrips()) ? "not reentrant here" : Fmt.num(c.reentrantRoundTrips()))
                    + " | "
                    + (Double.isNaN(c.statementsPerExtend())
                            ? Fmt.NONE
                            : Fmt.num(c.statementsPerExtend()) + " / " + Fmt.num(c.roundTripsPerExtend()) + " ("
                                    + Markdown.cell(c.extendBreakdown()) + ")")
                    + " |");
        }
        md.line();
    }
}
