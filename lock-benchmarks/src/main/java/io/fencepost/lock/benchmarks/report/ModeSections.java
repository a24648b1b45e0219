package io.fencepost.lock.benchmarks.report;

import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.scenarios.CycleResult;
import io.fencepost.lock.benchmarks.scenarios.ModeScenario;

/** Writes the sections on shared leases and on permits, each next to Redisson's closest. */
record ModeSections(Results r, Markdown md) implements Section {

    @Override
    public void write() {
        shared();
        permits();
    }

    private void shared() {
        if (r.sharedAlone == null && r.sharedReaders == null) {
            return;
        }
        md.line("## Shared leases (read locks)");
        md.line();
        md.line("Fencepost's `LockOptions.shared(true)` next to the read side of Redisson's `RReadWriteLock`"
                + " (`getReadWriteLock(key).readLock()`, watchdog on), with both libraries' exclusive locks for"
                + " reference. A cycle is acquire + release on one key, the same key every cycle; every reader's"
                + " grant and release is its own durable statement for Fencepost (a shared lease is one entry of the"
                + " key's row, joined and left under the key's draw lock), a Lua script for Redisson. Ratio: Fencepost"
                + " shared's cycles/s divided by the row's (above 1: Fencepost shared is faster).");
        md.line();
        table("One thread", r.sharedAlone, Library.FENCEPOST_SHARED);
        table(
                ModeScenario.THREADS + " readers of one key (one client, one JVM), all holding at once",
                r.sharedReaders,
                Library.FENCEPOST_SHARED);
    }

    private void permits() {
        if (r.permitsAlone == null && r.permitsThreads == null) {
            return;
        }
        md.line("## Permits (semaphores)");
        md.line();
        md.line("Fencepost's `LockOptions.permits(" + Library.PERMITS + ")` next to Redisson's"
                + " `RPermitExpirableSemaphore` (`trySetPermits(" + Library.PERMITS + ")`, `tryAcquire(wait, 30 s"
                + " lease)` / `release(permitId)`: leased permits with ids, the honest comparison) and its plain"
                + " `RSemaphore` (a counter: a holder that dies keeps its permit for good), with Fencepost's exclusive"
                + " lock for reference. Neither Redisson semaphore renews its permits; Fencepost renews every lease."
                + " With " + ModeScenario.THREADS + " threads on " + Library.PERMITS + " permits half of them wait;"
                + " a cycle's acquire includes that wait. Ratio: Fencepost permits' cycles/s divided by the row's.");
        md.line();
        table("One thread", r.permitsAlone, Library.FENCEPOST_PERMITS);
        table(
                ModeScenario.THREADS + " threads on " + Library.PERMITS + " permits of one key (one client, one JVM)",
                r.permitsThreads,
                Library.FENCEPOST_PERMITS);
    }

    private void table(String title, Series<CycleResult> s, Library base) {
        if (s == null) {
            return;
        }
        md.line("### " + title);
        md.line();
        md.line("| library | cycles/s | range over rounds | cycle p50 | cycle p99 | acquire p50 | release p50 | "
                + base.label() + " ÷ this |");
        md.line("| --- | --- | --- | --- | --- | --- | --- | --- |");
        for (Library library : s.libraries()) {
            long failed =
                    s.of(library).stream().mapToLong(CycleResult::anomalies).sum();
            md.line("| " + Section.label(library) + " | " + Fmt.count(s.median(library, CycleResult::perSecond)) + " | "
                    + Fmt.range(s.min(library, CycleResult::perSecond), s.max(library, CycleResult::perSecond)) + " | "
                    + Fmt.us(s.median(library, CycleResult::p50Micros)) + " | "
                    + Fmt.us(s.median(library, CycleResult::p99Micros)) + " | "
                    + Fmt.us(s.median(library, CycleResult::acquireP50Micros)) + " | "
                    + Fmt.us(s.median(library, CycleResult::releaseP50Micros)) + " | "
                    + (library == base ? "1" : Fmt.ratio(s.ratio(base, library, CycleResult::perSecond))) + " |"
                    + (failed > 0 ? " (" + failed + " acquires timed out)" : ""));
        }
        md.line();
    }
}
